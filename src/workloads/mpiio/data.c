/* SPDX-License-Identifier: BSD-3-Clause */
/* The data of the user's guide: an object of rank r holds the doubles r, r+1, ...; -touch 2
 * stamps its first element and -touch 3 the first element of each OS page of it with 1 + the
 * byte offset in the file where that element lands. The original stamped every 4096th element
 * and mixed element and byte counts in the value; here both are bytes, so a stamp says where the
 * data belongs, whatever the type. */
#include <stdio.h>

#include "clock.h"
#include "workloads/mpiio/mpiio.h"

/* Mismatch lines a rank prints before it only counts. */
#define MAX_LISTED 10

void mpiio_fill_base(double *obj, int64_t blk, int rank)
{
	for (int64_t i = 0; i < blk; i++)
		obj[i] = (double)(rank + i);
}

static int64_t page_elements(const struct mpiio_run *run)
{
	return run->page / 8;
}

static int64_t stamps(const struct mpiio_run *run)
{
	if (run->p->touch == 1)
		return 0;
	if (run->p->touch == 2)
		return 1;
	int64_t pe = page_elements(run);
	return (run->blk + pe - 1) / pe;
}

void mpiio_touch(double *obj, const struct mpiio_run *run, int64_t file_offset)
{
	int64_t n = stamps(run), pe = page_elements(run);
	for (int64_t k = 0; k < n; k++)
		obj[k * pe] = (double)(1 + file_offset + k * run->page);
}

static int64_t checked_prefix(const struct mpiio_run *run)
{
	switch (run->p->chkdata) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return run->blk < 2 ? run->blk : 2;
	default:
		return run->blk;
	}
}

int64_t mpiio_check(double *obj, const struct mpiio_run *run, int rank, int64_t file_offset)
{
	if (run->p->chkdata == 0)
		return 0;
	int64_t errors = 0, n = stamps(run), pe = page_elements(run);
	/* Stamps first, at every level; then they are put back to the base value, so the prefix
	 * check below sees a plain object. */
	for (int64_t k = 0; k < n; k++) {
		int64_t i = k * pe;
		if (obj[i] != (double)(1 + file_offset + k * run->page))
			errors++;
		obj[i] = (double)(rank + i);
	}
	int64_t len = checked_prefix(run);
	for (int64_t i = 0; i < len; i++)
		if (obj[i] != (double)(rank + i))
			errors++;
	return errors;
}

int64_t mpiio_checked_elements(const struct mpiio_run *run)
{
	if (run->p->chkdata == 0)
		return 0;
	int64_t len = checked_prefix(run), n = stamps(run), pe = page_elements(run);
	int64_t inside = (len + pe - 1) / pe; /* stamps that fall in the checked prefix */
	return len + n - (inside < n ? inside : n);
}

void mpiio_verify_note(struct mpiio_verify *v, int rank, int64_t obj, int64_t errors)
{
	if (errors == 0)
		return;
	v->errors += errors;
	v->bad_objects++;
	if (v->printed < MAX_LISTED)
		fprintf(
		    stderr,
		    "[RANK %d] ERROR: %lld Data elements in object %lld does not match expected "
		    "values.\n",
		    rank, (long long)errors, (long long)obj + 1);
	else if (v->printed == MAX_LISTED)
		fprintf(stderr,
		        "[RANK %d] ERROR: further objects do not match either; only the first %d "
		        "are listed.\n",
		        rank, MAX_LISTED);
	v->printed++;
	fflush(stderr);
}

void mpiio_check_object(const struct mpiio_run *run, double *obj, int64_t j, int64_t file_offset,
                        struct mpiio_times *t, struct mpiio_verify *v)
{
	double c = sonde_now();
	int64_t errors = mpiio_check(obj, run, run->rank, file_offset);
	t->check += sonde_now() - c;
	v->checked += mpiio_checked_elements(run);
	mpiio_verify_note(v, run->rank, j, errors);
}
