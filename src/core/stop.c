/* SPDX-License-Identifier: BSD-3-Clause */
/* Stop signals: which rank ended first (stop.h). */
#include "stop.h"

#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fail.h"

static struct {
	int n;
	int *pid, *rank; /* ranks on rank 0's node other than rank 0 */
} peers;

void sonde_stop_init(void)
{
	/* every rank alike, so that a second call makes no collective call on some ranks only (rank
	 * 0 alone keeps peers) */
	static int done;
	int init = 0, fin = 0;
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	if (!init || fin || done)
		return;
	done = 1;
	int rank, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	/* World rank 0 is rank 0 of its node's communicator (the key orders by world rank). */
	MPI_Comm node;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
	MPI_Comm_size(node, &n);
	/* every node's lowest rank is the root of its node's gather; rank 0 keeps its node's */
	int node_rank, mine[2] = {(int)getpid(), rank}, *all = NULL;
	MPI_Comm_rank(node, &node_rank);
	if (node_rank == 0)
		all = malloc(sizeof *all * 2 * (size_t)n);
	MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, node);
	MPI_Comm_free(&node);
	if (rank != 0 || !all) {
		free(all);
		return;
	}
	peers.pid = malloc(sizeof *peers.pid * (size_t)n);
	peers.rank = malloc(sizeof *peers.rank * (size_t)n);
	for (int i = 1; peers.pid && peers.rank && i < n; i++) {
		peers.pid[peers.n] = all[2 * i];
		peers.rank[peers.n++] = all[2 * i + 1];
	}
	free(all);
}

/* The state letter and wait status of a process from /proc/<pid>/stat, with open/read only. */
static int proc_state(int pid, char *state, int *status)
{
	char path[40] = "/proc/", digits[16];
	int nd = 0, at = 6;
	do {
		digits[nd++] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid);
	while (nd)
		path[at++] = digits[--nd];
	const char *tail = "/stat";
	while (*tail)
		path[at++] = *tail++;
	path[at] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[1024];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) S ...": the command may hold spaces and parentheses, the last ')' ends it;
	 * the exit status is field 52 (Linux 3.5 and later). */
	char *p = NULL;
	for (char *c = buf; *c; c++)
		if (*c == ')')
			p = c;
	if (!p || p[1] != ' ')
		return -1;
	*state = p[2];
	*status = 0;
	int field = 3;
	for (char *c = p + 3; *c; c++) {
		if (*c != ' ')
			continue;
		if (++field == 52) {
			int v = 0;
			for (c++; *c >= '0' && *c <= '9'; c++)
				v = v * 10 + (*c - '0');
			*status = v;
			break;
		}
	}
	return 0;
}

/* A rank that left on a stop signal of its own: exit code 4 after its handler, or killed by
 * the stop signal itself; or one whose run had ended well (exit code 0: a mix group done
 * before the others, leaving on the signal with its end record's code). */
static int stopped_alike(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status) == SONDE_EXIT_SIGNAL || WEXITSTATUS(status) == 0;
	return WIFSIGNALED(status) && (WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGINT);
}

int sonde_stop_failed_peer(void)
{
	for (int i = 0; i < peers.n; i++) {
		char state = 0;
		int status = 0;
		/* Gone (its launcher already collected it): it ended before this signal came. */
		if (proc_state(peers.pid[i], &state, &status) < 0)
			return peers.rank[i];
		if ((state == 'Z' || state == 'X') && !stopped_alike(status))
			return peers.rank[i];
	}
	return -1;
}

void sonde_stop_linger(void)
{
	struct timespec pause = {1, 0};
	while (nanosleep(&pause, &pause) != 0)
		;
}

void sonde_stop_defer(sigset_t *before)
{
	sigset_t stops;
	sigemptyset(&stops);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stops, before);
}

void sonde_stop_allow(const sigset_t *before)
{
	pthread_sigmask(SIG_SETMASK, before, NULL);
}
