/* SPDX-License-Identifier: BSD-3-Clause */
/* The timed transfer loop of an ior phase: IOR's segments x transfers, the stonewall deadline,
 * minTimeDuration's repeated passes, and the wear-out that brings every rank to the busiest
 * rank's number of transfers. A cursor says which transfer comes next; passes and the wear-out
 * go on from where it stands. Nothing here prints or reduces beyond what IOR's loop does
 * (the stonewall broadcast, the wear-out reductions); the phase reports afterwards. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "clock.h"
#include "fail.h"
#include "files.h"
#include "progress.h"
#include "timeseries.h"
#include "units.h"
#include "workloads/ior/layout.h"
#include "workloads/ior/run.h"

/* A call that ended at end (local time) after s seconds, moving n bytes (n < 0: it failed):
 * its latency sample and its interval of the time series. */
static void add_latency(struct ior_run *r, double end, double s, ssize_t n)
{
	sonde_series_call(end, s, n > 0 ? (int64_t)n : 0, 1);
	if (r->nlat == r->caplat) {
		r->caplat = r->caplat ? 2 * r->caplat : 4096;
		r->lat = realloc(r->lat, sizeof *r->lat * (size_t)r->caplat);
		if (!r->lat)
			sonde_fatal("out of memory for latency samples");
	}
	r->lat[r->nlat++] = s;
}

/* One transfer; returns bytes moved, or -errno after a failure (reported with sonde_agree by
 * the phase). */
static int64_t single(struct ior_run *r, const struct ior_params *p, struct sonde_file *f,
                      const struct ior_target *tg, enum ior_access acc, int64_t offset,
                      struct sonde_verify *v)
{
	size_t len = (size_t)p->xfer;
	ssize_t n;
	double t0, t1;
	if (acc == IOR_WRITE) {
		if (p->packet != IOR_PACKET_TIMESTAMP)
			sonde_pattern_fill(&tg->pat, r->buf, len, (uint64_t)offset);
		t0 = sonde_now();
		n = r->backend->write_at(f, r->buf, len, offset);
		t1 = sonde_now();
		add_latency(r, t1, t1 - t0, n);
		if (n == (ssize_t)len && p->fsync_per_write) {
			/* IOR: the backend's own sync of the transfer (MMAP's msync of the range),
			 * then the sync of the file, as for every backend */
			int rc =
			    r->backend->sync_range ? r->backend->sync_range(f, offset, len) : 0;
			if (rc == 0)
				rc = r->backend->sync(f);
			if (rc < 0)
				return rc;
		}
	} else {
		t0 = sonde_now();
		n = r->backend->read_at(f, r->buf, len, offset);
		t1 = sonde_now();
		add_latency(r, t1, t1 - t0, n);
		if (n == (ssize_t)len && (acc == IOR_WRITECHECK || acc == IOR_READCHECK)) {
			/* timestamp packets repeat one buffer, so every transfer is checked
			 * against its start; mismatches are reported at their file offset */
			uint64_t base = p->packet == IOR_PACKET_TIMESTAMP ? 0 : (uint64_t)offset;
			int kept = v->kept;
			if (sonde_pattern_check(&tg->pat, r->buf, len, base, v) > 0)
				r->bad_transfers++;
			for (int k = kept; k < v->kept; k++)
				v->first[k].offset += (uint64_t)offset - base;
		}
	}
	if (n >= 0 && n < (ssize_t)len)
		sonde_io_set_error(
		    "%s %s at offset %lld: %zd of %zu bytes (the file is shorter than "
		    "the test expects)",
		    acc == IOR_WRITE ? "write" : "read", tg->path, (long long)offset, n, len);
	return n == (ssize_t)len ? (int64_t)len : n < 0 ? n : -EIO;
}

/* Whether the ranks sharing a file must make the same calls: collective I/O, and backends
 * that create their data sets or flush collectively (HDF5, PnetCDF) on a shared file. */
static int lockstep(const struct ior_run *r, const struct ior_params *p)
{
	return p->collective || (!p->fpp && (r->backend->caps & SONDE_CAP_LOCKSTEP));
}

/* One transfer; after a failure (po->failed) this rank moves nothing, and where the ranks are
 * in lockstep it makes the call empty (and -Y's sync), so that nobody waits for it. */
static int64_t transfer_one(struct ior_run *r, const struct ior_params *p, struct sonde_file *f,
                            const struct ior_target *tg, enum ior_access acc, int64_t offset,
                            struct sonde_verify *v, struct ior_phase_out *po)
{
	if (po->failed) {
		sonde_path_shown(po->why, sizeof po->why, tg->io_path, tg->path);
		if (lockstep(r, p) && f) {
			if (acc == IOR_WRITE) {
				r->backend->write_at(f, r->buf, 0, offset);
				if (p->fsync_per_write)
					r->backend->sync(f);
			} else {
				r->backend->read_at(f, r->buf, 0, offset);
			}
		}
		return 0;
	}
	int64_t n = single(r, p, f, tg, acc, offset, v);
	if (n < 0) {
		snprintf(po->why, sizeof po->why, "%s", sonde_io_last_error());
		po->failed = 1;
		po->err = (int)-n;
		return 0;
	}
	return n;
}

/* Where the loop stands: the next transfer is number k of the block in segment seg. */
struct cursor {
	struct ior_geometry g;
	int pretend;
	int64_t count;        /* transfers in a block */
	const int64_t *order; /* -z: the block's offsets in IOR's shuffled order, or NULL */
	int64_t seg, k;
	/* -z -z: each segment's block is a random one of the file's file_blocks whole blocks
	 * (repeats allowed), starting at base; rng is the generator's state */
	int64_t file_blocks, base;
	uint64_t rng;
};

/* splitmix64: the next random number of the state */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static void draw_block(struct cursor *c)
{
	if (c->file_blocks)
		c->base = (int64_t)(next_random(&c->rng) % (uint64_t)c->file_blocks) * c->g.block;
}

static int64_t cursor_offset(const struct cursor *c)
{
	if (c->file_blocks)
		return c->base + c->k * c->g.xfer;
	if (!c->order)
		return ior_offset(&c->g, c->seg, c->k, c->pretend);
	return c->order[c->k] + c->seg * (c->g.fpp ? c->g.block : c->g.ntasks * c->g.block);
}

/* Moves to the next transfer; returns 1 when that starts the file over (a pass is complete). */
static int cursor_next(struct cursor *c)
{
	if (++c->k < c->count)
		return 0;
	c->k = 0;
	draw_block(c);
	if (++c->seg < c->g.segments)
		return 0;
	c->seg = 0;
	return 1;
}

/* -z -z (IOR's random reads): the blocks of the file as it is, read at random. A file shorter
 * than one block fails the phase, as the first read would. */
static void random_blocks(struct ior_run *r, const struct ior_params *p, struct sonde_file *f,
                          const struct ior_target *tg, struct cursor *c, struct ior_phase_out *po)
{
	c->file_blocks = 1; /* a rank that failed to open moves nothing, but keeps the count */
	c->rng = (uint64_t)(uint32_t)p->random_seed * (uint64_t)(tg->pretend + 1);
	if (po->failed || !f)
		return;
	int64_t size = r->backend->size(f);
	if (size < p->block) {
		if (size < 0)
			snprintf(po->why, sizeof po->why, "size of %.3000s: %s", tg->path,
			         sonde_io_last_error());
		else
			snprintf(
			    po->why, sizeof po->why,
			    "%.3000s holds %lld bytes, less than one block (-b %lld) to read at "
			    "random",
			    tg->path, (long long)size, (long long)p->block);
		po->failed = 1;
		po->err = size < 0 ? EIO : EINVAL;
		return;
	}
	c->file_blocks = size / p->block;
	draw_block(c);
}

/* minTimeDuration: another pass over the file? Rank 0 decides for collective I/O, where
 * every rank must make the same calls. */
static int again(const struct ior_run *r, const struct ior_params *p, int hit, double start)
{
	int more = !hit && sonde_now() - start < p->min_time;
	if (lockstep(r, p) && p->min_time)
		MPI_Bcast(&more, 1, MPI_INT, 0, r->comm);
	return more;
}

/* The stonewall: the deadline has passed or the wear-out count is reached. Rank 0 decides for
 * collective I/O. */
static int stonewall_hit(const struct ior_run *r, const struct ior_params *p, int64_t pairs,
                         double start)
{
	int hit = (p->deadline && sonde_now() - start > p->deadline) ||
	          (r->pairs_limit && pairs == r->pairs_limit);
	if (lockstep(r, p) && p->deadline)
		MPI_Bcast(&hit, 1, MPI_INT, 0, r->comm);
	return hit;
}

/* IOR's wear-out: the counts at the stonewall (logged with -v), and the busiest rank's count,
 * which every rank then reaches. */
static int64_t wear_out_target(struct ior_run *r, struct ior_point *pt, int64_t pairs,
                               int64_t moved, double start)
{
	long long mine = pairs, max = 0, min = 0, moved_ll = moved, min_moved = 0, sum = 0;
	MPI_Allreduce(&mine, &max, 1, MPI_LONG_LONG, MPI_MAX, r->comm);
	pt->sw_time = sonde_now() - start;
	MPI_Allreduce(&mine, &min, 1, MPI_LONG_LONG, MPI_MIN, r->comm);
	MPI_Allreduce(&moved_ll, &min_moved, 1, MPI_LONG_LONG, MPI_MIN, r->comm);
	MPI_Allreduce(&moved_ll, &sum, 1, MPI_LONG_LONG, MPI_SUM, r->comm);
	pt->sw_min_bytes = min_moved;
	pt->sw_total_bytes = sum;
	if (r->rank == 0 && r->log)
		fprintf(r->log,
		        "stonewalling pairs accessed min: %lld max: %lld -- min data: %.1f "
		        "GiB mean data: %.1f GiB time: %.1fs\n",
		        min, max, min_moved / (double)SONDE_GIB,
		        (double)sum / r->ntasks / (double)SONDE_GIB, pt->sw_time);
	return max;
}

/* After a failure a rank goes on only as far as the others' collective calls need it
 * (collective I/O, the stonewall broadcast, the wear-out reductions), and the phase's agreement
 * reports the failure. */
void ior_transfer_all(struct ior_run *r, const struct ior_params *p, struct sonde_file *f,
                      const struct ior_target *tg, enum ior_access acc, struct ior_point *pt,
                      struct sonde_verify *v, struct ior_phase_out *po)
{
	struct cursor c = {.g = {p->block, p->xfer, p->segments, r->ntasks, p->fpp},
	                   .pretend = tg->pretend,
	                   .count = p->block / p->xfer};
	int64_t *order = NULL;
	if (p->random_offset > 1)
		random_blocks(r, p, f, tg, &c, po);
	else if (p->random_offset) {
		unsigned seed = (unsigned)p->random_seed;
		if (p->fpp)
			seed = (unsigned)(p->random_seed + tg->pretend);
		c.order = order = ior_random_offsets(&c.g, tg->pretend, seed, &c.count);
	}
	int64_t moved = 0, pairs = 0;
	int hit = 0, alone = 0; /* alone: failed, with no collective call left to take part in */
	/* minTimeDuration repeats the passes: its time, not the amount, ends the phase */
	struct sonde_progress live;
	sonde_progress_begin(&live, r->ctx, ior_phase_name(acc), SONDE_PROGRESS_BYTES,
	                     p->min_time ? 0 : p->segments * c.count * p->xfer, r->ntasks,
	                     p->deadline ? p->deadline : p->min_time);
	double start = sonde_now();
	do { /* minTimeDuration: go over the file again until the time has passed */
		int pass_done = c.count == 0; /* -z on a shared file can deal a rank nothing */
		while (!hit && !pass_done && !alone) {
			moved += transfer_one(r, p, f, tg, acc, cursor_offset(&c), v, po);
			alone = po->failed && !lockstep(r, p);
			if (alone)
				break;
			pairs++;
			pass_done = cursor_next(&c);
			hit = stonewall_hit(r, p, pairs, start);
			sonde_progress_update(&live, moved);
		}
	} while (!alone && again(r, p, hit, start));

	pt->pairs = pairs;
	if (p->wearout) {
		/* from the transfer the stonewall stopped at, wrapping around the file (a rank
		 * dealt no transfers has none to repeat) */
		pt->pairs = wear_out_target(r, pt, pairs, moved, start);
		for (; pairs < pt->pairs && c.count > 0; pairs++, cursor_next(&c)) {
			moved += transfer_one(r, p, f, tg, acc, cursor_offset(&c), v, po);
			sonde_progress_update(&live, moved);
		}
	}
	sonde_progress_end(&live);
	/* MPI-IO's sync is collective: a rank that failed still takes part */
	if (acc == IOR_WRITE && p->fsync && f && r->backend->sync(f) < 0 && !po->failed) {
		snprintf(po->why, sizeof po->why, "fsync of %.3000s failed: %s", tg->path,
		         sonde_io_last_error());
		po->failed = 1;
	}
	free(order);
	po->moved = moved;
	po->pairs = pairs;
}
