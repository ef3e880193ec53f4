/* SPDX-License-Identifier: BSD-3-Clause */
/* Aggregation placement (types 3 and 4). Every rank computes the same plan from the same
 * inputs, so placement is deterministic: senders are kept in rank order (the original used
 * message arrival order, which made the files' layout a matter of chance). */
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "units.h"
#include "workloads/mpiio/mpiio.h"

/* The numbers of -num_io (one per word: mpiio_params_load split "2 2"). */
static int num_io_counts(const struct sonde_strlist *l, int **out)
{
	int *v = malloc(sizeof *v * (size_t)(l->count + 1));
	if (!v)
		sonde_fatal("no memory");
	for (int i = 0; i < l->count; i++) {
		int64_t x;
		char err[256];
		if (sonde_parse_int(l->items[i], 1, INT32_MAX, &x, err, sizeof err) < 0)
			mpiio_usage_error("-num_io: %s", err);
		v[i] = (int)x;
	}
	*out = v;
	return l->count;
}

/* "node7" names the host "node7.cluster" too. */
static int same_host(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la == lb)
		return strcmp(a, b) == 0;
	const char *s = la < lb ? a : b, *l = la < lb ? b : a;
	size_t ls = la < lb ? la : lb;
	return strncmp(s, l, ls) == 0 && l[ls] == '.';
}

/* Without -host: M aggregators spread evenly in rank order, each taking the ranks from itself
 * up to the next one (the guide's "greatest I/O rank not exceeding K"). */
static void place_even(struct mpiio_plan *pl, int nranks, int m)
{
	int q = nranks / m, rem = nranks % m;
	for (int i = 0; i < m; i++)
		pl->agg_rank[i] = q * i + (i < rem ? i : rem);
	for (int r = 0, i = 0; r < nranks; r++) {
		while (i + 1 < m && pl->agg_rank[i + 1] <= r)
			i++;
		pl->agg_of[r] = i;
	}
}

static void refuse_listed_twice(const struct sonde_strlist *hosts, int h)
{
	for (int g = 0; g < h; g++)
		if (same_host(hosts->items[g], hosts->items[h]))
			mpiio_usage_error("-host: %s is listed twice", hosts->items[h]);
}

/* With -host: the first k processes of each listed host aggregate; every other process goes to
 * the least loaded aggregator of its own host, or of any I/O host when its host has none (ties:
 * the lowest aggregator). */
static int place_hosts(struct mpiio_plan *pl, const struct mpiio_run *run, const int *counts,
                       int ncounts)
{
	const struct sonde_strlist *hosts = &run->p->host;
	int nranks = run->nranks;
	if (ncounts != 1 && ncounts != hosts->count)
		mpiio_usage_error("-num_io: give one number for every -host, or one for all (%d "
		                  "numbers for %d hosts)",
		                  ncounts, hosts->count);
	/* sonde --parse-only: where the launch's processes will run is not known yet. The count
	 * is what -num_io asks for (what a placement that succeeds gives), and the aggregators
	 * are spread evenly in its stead, which gives the same number of senders; whether enough
	 * processes run on each host is the launch's check. */
	if (run->ctx->parse_only) {
		int m = 0;
		for (int h = 0; h < hosts->count; h++) {
			refuse_listed_twice(hosts, h);
			m += counts[ncounts == 1 ? 0 : h];
		}
		if (m > nranks)
			mpiio_usage_error("-num_io: %d I/O processes, more than the %d processes",
			                  m, nranks);
		pl->naggs = m;
		pl->agg_rank = malloc(sizeof *pl->agg_rank * (size_t)m);
		place_even(pl, nranks, m);
		return m;
	}
	/* Each rank finds its own host in the list; only that index travels (N ints, not N
	 * host names, on every rank). */
	int mine = -1;
	for (int h = 0; h < hosts->count && mine < 0; h++)
		if (same_host(run->hostname, hosts->items[h]))
			mine = h;
	int *host_of = malloc(sizeof *host_of * (size_t)nranks);
	MPI_Allgather(&mine, 1, MPI_INT, host_of, 1, MPI_INT, run->ctx->comm);
	int m = 0;
	int *is_agg = calloc((size_t)nranks, sizeof *is_agg);
	for (int h = 0; h < hosts->count; h++) {
		refuse_listed_twice(hosts, h);
		int want = counts[ncounts == 1 ? 0 : h], have = 0;
		for (int r = 0; r < nranks && have < want; r++)
			if (host_of[r] == h) {
				is_agg[r] = 1;
				have++;
			}
		if (have < want)
			mpiio_usage_error(
			    "-host %s: %s, but -num_io asks for %d I/O processes there",
			    hosts->items[h],
			    have ? "too few processes run there" : "no process runs there", want);
		m += want;
	}
	pl->naggs = m;
	pl->agg_rank = malloc(sizeof *pl->agg_rank * (size_t)m);
	int *load = calloc((size_t)m, sizeof *load);
	for (int r = 0, i = 0; r < nranks; r++)
		if (is_agg[r]) {
			pl->agg_of[r] = i;
			pl->agg_rank[i++] = r;
			load[pl->agg_of[r]] = !run->p->norsend;
		}
	for (int r = 0; r < nranks; r++) {
		if (is_agg[r])
			continue;
		int local = host_of[r] >= 0, best = -1;
		for (int i = 0; i < m; i++) {
			if (local && host_of[pl->agg_rank[i]] != host_of[r])
				continue;
			if (best < 0 || load[i] < load[best])
				best = i;
		}
		pl->agg_of[r] = best;
		load[best]++;
	}
	free(load);
	free(is_agg);
	free(host_of);
	return m;
}

void mpiio_plan_build(struct mpiio_run *run)
{
	struct mpiio_plan *pl = &run->plan;
	int nranks = run->nranks;
	int *counts = NULL;
	int ncounts = num_io_counts(&run->p->num_io, &counts);
	pl->agg_of = malloc(sizeof *pl->agg_of * (size_t)nranks);
	pl->slot = malloc(sizeof *pl->slot * (size_t)nranks);
	if (run->p->host.count > 0) {
		if (ncounts == 0)
			mpiio_usage_error("-host needs -num_io (I/O processes per host)");
		place_hosts(pl, run, counts, ncounts);
	} else {
		int64_t m = 0;
		for (int i = 0; i < ncounts; i++)
			m += counts[i];
		if (ncounts == 0)
			m = nranks;
		if (m > nranks)
			mpiio_usage_error("-num_io %lld: more I/O processes than the %d processes",
			                  (long long)m, nranks);
		pl->naggs = (int)m;
		pl->agg_rank = malloc(sizeof *pl->agg_rank * (size_t)m);
		place_even(pl, nranks, (int)m);
	}
	free(counts);

	int m = pl->naggs;
	pl->nsenders = calloc((size_t)m, sizeof *pl->nsenders);
	pl->first = calloc((size_t)m, sizeof *pl->first);
	pl->my_agg = -1;
	for (int r = 0; r < nranks; r++) {
		int i = pl->agg_of[r];
		int self = pl->agg_rank[i] == r;
		if (self && r == run->rank)
			pl->my_agg = i;
		pl->slot[r] = self && run->p->norsend ? -1 : pl->nsenders[i]++;
	}
	for (int i = 1; i < m; i++)
		pl->first[i] = pl->first[i - 1] + (int64_t)pl->nsenders[i - 1] * run->p->nobj;
	if (pl->my_agg >= 0) {
		pl->my_senders =
		    malloc(sizeof *pl->my_senders * (size_t)(pl->nsenders[pl->my_agg] + 1));
		for (int r = 0, k = 0; r < nranks; r++)
			if (pl->agg_of[r] == pl->my_agg && pl->slot[r] >= 0)
				pl->my_senders[k++] = r;
	}
}

void mpiio_plan_free(struct mpiio_plan *pl)
{
	free(pl->agg_rank);
	free(pl->agg_of);
	free(pl->slot);
	free(pl->nsenders);
	free(pl->first);
	free(pl->my_senders);
	memset(pl, 0, sizeof *pl);
}

int64_t mpiio_num_io_sum(const struct sonde_strlist *num_io)
{
	int *counts = NULL;
	int n = num_io_counts(num_io, &counts);
	int64_t m = 0;
	for (int i = 0; i < n; i++)
		m += counts[i];
	free(counts);
	return m;
}
