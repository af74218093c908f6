/*
 * A program written the way a user of the reference sha1collisiondetection
 * library writes one: it includes <sha1dc/sha1.h>, uses only the header's
 * API (and, as C callers may, the context's fields) and is linked with
 * -lsha1detectcoll. tests/c_api.rs builds it against the static and the
 * shared library and runs it.
 *
 * Usage: reference_user TESTDATA_DIR RANDOM_FILE RANDOM_SHA1_HEX
 *                       [NAME:FIRST_OFFSET:BLOCKS_SAFE:BLOCKS_PLAIN ...]
 * TESTDATA_DIR holds the collision files; RANDOM_FILE is arbitrary data and
 * RANDOM_SHA1_HEX its plain SHA-1 (computed by the Rust side); each NAME
 * argument gives, for one collision file, the offset of the first block
 * the detector reports and how many blocks it reports with the safe hash
 * on and off (also from the Rust side, with fastcrypt's own Sha1Dc).
 *
 * Prints one line per group of checks, then "all N checks passed";
 * exits 1 on any failure, naming it on stderr.
 *
 * Compile-time checks: the context layout against the Rust definition,
 * whose sizes and offsets the test passes in as RUST_* macros.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha1dc/sha1.h>

/* ---- the context layout, checked at compile time ---- */

#ifndef RUST_SIZEOF_SHA1_CTX
#error "compile with the RUST_* layout macros (tests/c_api.rs passes them)"
#endif

#define SAME_OFFSET(field, rust)                                                               \
	_Static_assert(offsetof(SHA1_CTX, field) == (rust),                                      \
		       "SHA1_CTX." #field ": offset differs between the C header and the Rust struct")

_Static_assert(sizeof(SHA1_CTX) == RUST_SIZEOF_SHA1_CTX,
	       "sizeof(SHA1_CTX) differs between the C header and the Rust struct");
_Static_assert(_Alignof(SHA1_CTX) == RUST_ALIGNOF_SHA1_CTX,
	       "alignment of SHA1_CTX differs between the C header and the Rust struct");
SAME_OFFSET(total, RUST_OFFSETOF_total);
SAME_OFFSET(ihv, RUST_OFFSETOF_ihv);
SAME_OFFSET(buffer, RUST_OFFSETOF_buffer);
SAME_OFFSET(found_collision, RUST_OFFSETOF_found_collision);
SAME_OFFSET(safe_hash, RUST_OFFSETOF_safe_hash);
SAME_OFFSET(detect_coll, RUST_OFFSETOF_detect_coll);
SAME_OFFSET(ubc_check, RUST_OFFSETOF_ubc_check);
SAME_OFFSET(reduced_round_coll, RUST_OFFSETOF_reduced_round_coll);
SAME_OFFSET(callback, RUST_OFFSETOF_callback);
SAME_OFFSET(ihv1, RUST_OFFSETOF_ihv1);
SAME_OFFSET(ihv2, RUST_OFFSETOF_ihv2);
SAME_OFFSET(m1, RUST_OFFSETOF_m1);
SAME_OFFSET(m2, RUST_OFFSETOF_m2);
SAME_OFFSET(states, RUST_OFFSETOF_states);

/* ---- reporting ---- */

static unsigned checks, failures;

#define CHECK(cond, ...)                                                                          \
	do {                                                                                      \
		checks++;                                                                         \
		if (!(cond)) {                                                                    \
			failures++;                                                               \
			fprintf(stderr, "FAIL (line %d): ", __LINE__);                            \
			fprintf(stderr, __VA_ARGS__);                                             \
			fputc('\n', stderr);                                                      \
		}                                                                                 \
	} while (0)

static void group_done(const char *name, unsigned before)
{
	printf("%-44s %3u checks\n", name, checks - before);
}

static void to_hex(char out[41], const unsigned char digest[20])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 20; i++) {
		out[2 * i] = digits[digest[i] >> 4];
		out[2 * i + 1] = digits[digest[i] & 15];
	}
	out[40] = 0;
}

/* ---- input ---- */

struct file {
	unsigned char *data;
	size_t len;
};

static struct file read_file(const char *dir, const char *name)
{
	char path[4096];
	struct file f = { NULL, 0 };
	if (dir)
		snprintf(path, sizeof path, "%s/%s", dir, name);
	else
		snprintf(path, sizeof path, "%s", name);
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(2);
	}
	size_t cap = 1 << 16;
	f.data = malloc(cap);
	for (;;) {
		if (!f.data) {
			fprintf(stderr, "out of memory reading %s\n", path);
			exit(2);
		}
		f.len += fread(f.data + f.len, 1, cap - f.len, fp);
		if (f.len < cap)
			break;
		cap *= 2;
		f.data = realloc(f.data, cap);
	}
	if (ferror(fp)) {
		fprintf(stderr, "error reading %s\n", path);
		exit(2);
	}
	fclose(fp);
	return f;
}

/* ---- hashing helpers ---- */

/* Switches: -1 leaves the default SHA1DCInit sets. */
struct opts {
	int safe_hash, detect, ubc, reduced_round;
};

static const struct opts defaults = { -1, -1, -1, -1 };

static void setup(SHA1_CTX *ctx, struct opts o)
{
	SHA1DCInit(ctx);
	if (o.safe_hash >= 0)
		SHA1DCSetSafeHash(ctx, o.safe_hash);
	if (o.detect >= 0)
		SHA1DCSetUseDetectColl(ctx, o.detect);
	if (o.ubc >= 0)
		SHA1DCSetUseUBC(ctx, o.ubc);
	if (o.reduced_round >= 0)
		SHA1DCSetDetectReducedRoundCollision(ctx, o.reduced_round);
}

/* Hashes data in pieces of `chunk` bytes (0: in one call); returns
 * SHA1DCFinal's value and the digest in hex. */
static int hash_hex(const unsigned char *data, size_t len, size_t chunk, struct opts o, char hex[41])
{
	SHA1_CTX ctx;
	unsigned char digest[20];
	setup(&ctx, o);
	if (chunk == 0)
		chunk = len;
	for (size_t at = 0; at < len; at += chunk) {
		size_t n = len - at < chunk ? len - at : chunk;
		SHA1DCUpdate(&ctx, (const char *)data + at, n);
	}
	int ret = SHA1DCFinal(digest, &ctx);
	to_hex(hex, digest);
	return ret;
}

/* ---- expected values (crates/fastcrypt/testdata/SOURCES.md) ---- */

struct vector {
	const char *name;
	const char *plain;     /* sha1sum */
	const char *safe;      /* default switches */
	int coll;              /* detected with the default switches */
	const char *safe_rr;   /* reduced-round detection on */
};

static const struct vector vectors[] = {
	{ "sha1_reducedsha_coll.bin", "a56374e1cf4c3746499bc7c0acb39498ad2ee185",
	  "a56374e1cf4c3746499bc7c0acb39498ad2ee185", 0, "dd39885a2a5d8f59030b451e00cb45da9f9d3828" },
	{ "shattered-1.pdf", "38762cf7f55934b34d179ae6a4c80cadccbb7f0a",
	  "16e96b70000dd1e7c85b8368ee197754400e58ec", 1, "d3a1d09969c3b57113fd17b23e01dd3de74a99bb" },
	{ "shattered-2.pdf", "38762cf7f55934b34d179ae6a4c80cadccbb7f0a",
	  "e1761773e6a35916d99f891b77663e6405313587", 1, "92246b0b718f4c704d37bb025717cbc66babf102" },
	{ "sha-mbles-1.bin", "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0",
	  "4f3d9be4a472c4dae83c6314aa6c36a064c1fd14", 1, "4f3d9be4a472c4dae83c6314aa6c36a064c1fd14" },
	{ "sha-mbles-2.bin", "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0",
	  "9ed5d77a4f48be1dbf3e9e15650733eb850897f2", 1, "9ed5d77a4f48be1dbf3e9e15650733eb850897f2" },
};
#define NVECTORS (sizeof vectors / sizeof vectors[0])

/* ---- the collision callback ---- */

#define MAX_CALLS 16

struct call {
	uint64_t offset;
	uint32_t ihv1[5], ihv2[5], m1[80], m2[80];
};

static struct call calls[MAX_CALLS];
static unsigned ncalls;

static void record(uint64_t offset, const uint32_t *ihv1, const uint32_t *ihv2, const uint32_t *m1,
		   const uint32_t *m2)
{
	if (ncalls < MAX_CALLS) {
		struct call *c = &calls[ncalls];
		c->offset = offset;
		memcpy(c->ihv1, ihv1, sizeof c->ihv1);
		memcpy(c->ihv2, ihv2, sizeof c->ihv2);
		memcpy(c->m1, m1, sizeof c->m1);
		memcpy(c->m2, m2, sizeof c->m2);
	}
	ncalls++;
}

/* SHA-1's message expansion of the 64 bytes at p. */
static void expand(uint32_t w[80], const unsigned char *p)
{
	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 |
		       p[4 * t + 3];
	for (int t = 16; t < 80; t++) {
		uint32_t x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16];
		w[t] = x << 1 | x >> 31;
	}
}

struct expect {
	const char *name;
	unsigned long first_offset, blocks_safe, blocks_plain;
};

static int parse_expect(const char *arg, struct expect *e)
{
	static char name[256];
	if (sscanf(arg, "%255[^:]:%lu:%lu:%lu", name, &e->first_offset, &e->blocks_safe, &e->blocks_plain) !=
	    4)
		return 0;
	e->name = name;
	return 1;
}

/* Runs one file with the callback set; leaves the calls in `calls`. */
static int hash_with_callback(const struct file *f, int safe_hash, size_t chunk, SHA1_CTX *ctx,
			      unsigned char digest[20])
{
	ncalls = 0;
	SHA1DCInit(ctx);
	SHA1DCSetSafeHash(ctx, safe_hash);
	SHA1DCSetCallback(ctx, record);
	for (size_t at = 0; at < f->len; at += chunk)
		SHA1DCUpdate(ctx, (const char *)f->data + at, f->len - at < chunk ? f->len - at : chunk);
	return SHA1DCFinal(digest, ctx);
}

static void test_callback(const char *dir, const struct expect *e, struct call partner_calls[MAX_CALLS],
			  unsigned *partner_n)
{
	struct file f = read_file(dir, e->name);
	SHA1_CTX ctx;
	unsigned char digest[20];
	char hex[41], name[300];
	unsigned before = checks;

	/* Safe hash on: the count and the first offset as fastcrypt's Sha1Dc
	 * reports them; the context keeps the last call's values. */
	int ret = hash_with_callback(&f, 1, 4097, &ctx, digest);
	CHECK(ret != 0, "%s: SHA1DCFinal returned 0 with a callback set", e->name);
	CHECK(ncalls == e->blocks_safe, "%s: callback called %u times, want %lu", e->name, ncalls,
	      e->blocks_safe);
	CHECK(ncalls > 0 && calls[0].offset == e->first_offset, "%s: first callback at byte %llu, want %lu",
	      e->name, ncalls ? (unsigned long long)calls[0].offset : 0ULL, e->first_offset);
	if (ncalls > 0 && ncalls <= MAX_CALLS) {
		const struct call *last = &calls[ncalls - 1];
		CHECK(memcmp(ctx.ihv1, last->ihv1, sizeof ctx.ihv1) == 0 &&
			      memcmp(ctx.ihv2, last->ihv2, sizeof ctx.ihv2) == 0 &&
			      memcmp(ctx.m1, last->m1, sizeof ctx.m1) == 0 &&
			      memcmp(ctx.m2, last->m2, sizeof ctx.m2) == 0,
		      "%s: the context's ihv1/ihv2/m1/m2 differ from the last callback's", e->name);
	}
	to_hex(hex, digest);
	for (size_t i = 0; i < NVECTORS; i++)
		if (strcmp(vectors[i].name, e->name) == 0)
			CHECK(strcmp(hex, vectors[i].safe) == 0, "%s: with a callback: %s, want %s", e->name,
			      hex, vectors[i].safe);

	/* Safe hash off, byte by byte: every chaining value is plain SHA-1's,
	 * so each call can be checked on its own. */
	ret = hash_with_callback(&f, 0, 1, &ctx, digest);
	CHECK(ret != 0, "%s: SHA1DCFinal returned 0 with safe hash off", e->name);
	CHECK(ncalls == e->blocks_plain && ncalls <= MAX_CALLS, "%s: safe hash off: %u calls, want %lu",
	      e->name, ncalls, e->blocks_plain);
	for (unsigned i = 0; i < ncalls && i < MAX_CALLS; i++) {
		const struct call *c = &calls[i];
		uint32_t w[80];
		CHECK(c->offset % 64 == 0 && c->offset + 64 <= f.len && (i == 0 || c->offset > calls[i - 1].offset),
		      "%s: callback %u at byte %llu", e->name, i, (unsigned long long)c->offset);
		if (c->offset + 64 > f.len)
			continue;
		/* m1 is the expanded message of the file's block at that offset. */
		expand(w, f.data + c->offset);
		CHECK(memcmp(w, c->m1, sizeof w) == 0, "%s: callback %u: m1 is not the block at byte %llu",
		      e->name, i, (unsigned long long)c->offset);
		CHECK(memcmp(c->m1, c->m2, sizeof c->m1) != 0, "%s: callback %u: m2 equals m1", e->name, i);
		/* ihv1 is SHA-1's chaining value after the bytes before the
		 * block: hash them with detection off and read the context. */
		SHA1_CTX plain;
		SHA1DCInit(&plain);
		SHA1DCSetUseDetectColl(&plain, 0);
		SHA1DCUpdate(&plain, (const char *)f.data, (size_t)c->offset);
		CHECK(memcmp(plain.ihv, c->ihv1, sizeof plain.ihv) == 0,
		      "%s: callback %u: ihv1 is not the chaining value at byte %llu", e->name, i,
		      (unsigned long long)c->offset);
		CHECK(memcmp(c->ihv1, c->ihv2, sizeof c->ihv1) != 0, "%s: callback %u: ihv2 equals ihv1",
		      e->name, i);
	}

	/* The two files of a pair collide: the other block the detector
	 * reconstructs for one file is the other file's block. */
	if (*partner_n > 0) {
		CHECK(ncalls == *partner_n, "%s: %u calls, its partner had %u", e->name, ncalls, *partner_n);
		for (unsigned i = 0; i < ncalls && i < *partner_n && i < MAX_CALLS; i++) {
			const struct call *a = &partner_calls[i], *b = &calls[i];
			CHECK(a->offset == b->offset &&
				      memcmp(a->ihv2, b->ihv1, sizeof a->ihv2) == 0 &&
				      memcmp(a->m2, b->m1, sizeof a->m2) == 0 &&
				      memcmp(b->ihv2, a->ihv1, sizeof b->ihv2) == 0 &&
				      memcmp(b->m2, a->m1, sizeof b->m2) == 0,
			      "%s: callback %u does not reconstruct its partner's block", e->name, i);
		}
		*partner_n = 0;
	} else {
		memcpy(partner_calls, calls, sizeof calls);
		*partner_n = ncalls < MAX_CALLS ? ncalls : MAX_CALLS;
	}

	snprintf(name, sizeof name, "callback: %s", e->name);
	group_done(name, before);
	free(f.data);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s TESTDATA_DIR RANDOM_FILE RANDOM_SHA1_HEX [NAME:OFF:N:N ...]\n",
			argv[0]);
		return 2;
	}
	const char *dir = argv[1];
	struct file files[NVECTORS];
	char hex[41];
	unsigned before;
	int ret;

	for (size_t i = 0; i < NVECTORS; i++)
		files[i] = read_file(dir, vectors[i].name);

	/* Known answers on short input. */
	before = checks;
	ret = hash_hex((const unsigned char *)"abc", 3, 0, defaults, hex);
	CHECK(ret == 0 && strcmp(hex, "a9993e364706816aba3e25717850c26c9cd0d89d") == 0, "\"abc\": %d %s", ret,
	      hex);
	ret = hash_hex(NULL, 0, 0, defaults, hex);
	CHECK(ret == 0 && strcmp(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709") == 0, "empty: %d %s", ret,
	      hex);
	{
		/* len 0 returns at once, whatever the pointers. */
		SHA1_CTX ctx;
		unsigned char digest[20];
		SHA1DCInit(&ctx);
		SHA1DCUpdate(&ctx, "a", 1);
		SHA1DCUpdate(&ctx, NULL, 0);
		SHA1DCUpdate(NULL, NULL, 0);
		SHA1DCUpdate(&ctx, "bc", 2);
		CHECK(ctx.total == 3, "total is %llu after 3 bytes", (unsigned long long)ctx.total);
		ret = SHA1DCFinal(digest, &ctx);
		to_hex(hex, digest);
		CHECK(ret == 0 && strcmp(hex, "a9993e364706816aba3e25717850c26c9cd0d89d") == 0,
		      "\"abc\" with empty updates: %d %s", ret, hex);
	}
	group_done("known answers, len 0 and NULL", before);

	/* The collision files with the default switches and with
	 * reduced-round detection, in one call and in odd pieces. */
	static const size_t chunks[] = { 0, 1, 3, 63, 64, 65, 4097 };
	before = checks;
	for (size_t i = 0; i < NVECTORS; i++) {
		const struct vector *v = &vectors[i];
		const struct file *f = &files[i];
		for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
			/* Byte by byte through the 412 KiB PDFs once is enough. */
			if (chunks[c] == 1 && f->len > 100000 && i != 1)
				continue;
			ret = hash_hex(f->data, f->len, chunks[c], defaults, hex);
			CHECK((ret != 0) == v->coll && strcmp(hex, v->safe) == 0,
			      "%s, pieces of %zu: returned %d, %s; want %d, %s", v->name, chunks[c], ret, hex,
			      v->coll, v->safe);
			struct opts rr = defaults;
			rr.reduced_round = 1;
			ret = hash_hex(f->data, f->len, chunks[c], rr, hex);
			CHECK(ret != 0 && strcmp(hex, v->safe_rr) == 0,
			      "%s, reduced-round, pieces of %zu: returned %d, %s; want coll, %s", v->name,
			      chunks[c], ret, hex, v->safe_rr);
		}
	}
	group_done("collision files, default and reduced-round", before);

	/* The setters. */
	before = checks;
	for (size_t i = 1; i < NVECTORS; i++) {
		const struct vector *v = &vectors[i];
		const struct file *f = &files[i];
		struct opts o = defaults;
		o.safe_hash = 0;
		ret = hash_hex(f->data, f->len, 0, o, hex);
		CHECK(ret != 0 && strcmp(hex, v->plain) == 0,
		      "%s, safe hash off: returned %d, %s; want non-zero, plain SHA-1 %s", v->name, ret, hex,
		      v->plain);
		o = defaults;
		o.detect = 0;
		ret = hash_hex(f->data, f->len, 65, o, hex);
		CHECK(ret == 0 && strcmp(hex, v->plain) == 0,
		      "%s, detection off: returned %d, %s; want 0, plain SHA-1 %s", v->name, ret, hex, v->plain);
		o = defaults;
		o.ubc = 0;
		ret = hash_hex(f->data, f->len, 4097, o, hex);
		CHECK(ret != 0 && strcmp(hex, v->safe) == 0, "%s, UBC filter off: returned %d, %s; want %s",
		      v->name, ret, hex, v->safe);
		/* Setters take any non-zero value as on. */
		o = defaults;
		o.safe_hash = 42;
		o.detect = -7 & 0xff;
		ret = hash_hex(f->data, f->len, 0, o, hex);
		CHECK(ret != 0 && strcmp(hex, v->safe) == 0, "%s, switches set to 42: returned %d, %s", v->name,
		      ret, hex);
	}
	{
		/* Switches are read on every call, and a detection is kept until
		 * SHA1DCInit: detection off over the attack blocks, on for the
		 * rest, finds nothing; on over them, then off, still reports. */
		const struct file *f = &files[1];
		SHA1_CTX ctx;
		unsigned char digest[20];
		SHA1DCInit(&ctx);
		SHA1DCSetUseDetectColl(&ctx, 0);
		SHA1DCUpdate(&ctx, (const char *)f->data, 1000);
		SHA1DCSetUseDetectColl(&ctx, 1);
		SHA1DCUpdate(&ctx, (const char *)f->data + 1000, f->len - 1000);
		ret = SHA1DCFinal(digest, &ctx);
		to_hex(hex, digest);
		CHECK(ret == 0 && strcmp(hex, vectors[1].plain) == 0,
		      "detection off over the attack, then on: %d %s", ret, hex);
		SHA1DCInit(&ctx);
		SHA1DCUpdate(&ctx, (const char *)f->data, 1000);
		SHA1DCSetUseDetectColl(&ctx, 0);
		SHA1DCUpdate(&ctx, (const char *)f->data + 1000, f->len - 1000);
		ret = SHA1DCFinal(digest, &ctx);
		to_hex(hex, digest);
		CHECK(ret != 0 && strcmp(hex, vectors[1].safe) == 0,
		      "detection on over the attack, then off: %d %s", ret, hex);
		/* A context used for an attack starts clean after SHA1DCInit. */
		SHA1DCInit(&ctx);
		SHA1DCUpdate(&ctx, "abc", 3);
		ret = SHA1DCFinal(digest, &ctx);
		to_hex(hex, digest);
		CHECK(ret == 0 && strcmp(hex, "a9993e364706816aba3e25717850c26c9cd0d89d") == 0,
		      "\"abc\" after an attack and SHA1DCInit: %d %s", ret, hex);
	}
	group_done("setters", before);

	/* Copied contexts: copy mid-stream (before, inside and after the attack
	 * blocks, on and off block boundaries), finish both the same way. */
	before = checks;
	static const size_t cuts[] = { 0, 100, 192, 250, 320, 1000, 65536, 400001 };
	for (size_t i = 1; i < NVECTORS; i++) {
		const struct vector *v = &vectors[i];
		const struct file *f = &files[i];
		for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
			size_t cut = cuts[k] < f->len ? cuts[k] : f->len;
			SHA1_CTX a, b, c;
			unsigned char da[20], db[20], dc[20];
			char ha[41], hb[41], hc[41];
			SHA1DCInit(&a);
			SHA1DCUpdate(&a, (const char *)f->data, cut);
			memcpy(&b, &a, sizeof a);
			c = a;
			SHA1DCUpdate(&a, (const char *)f->data + cut, f->len - cut);
			int ra = SHA1DCFinal(da, &a);
			/* the original is finished first: the copies must not
			 * depend on it */
			SHA1DCUpdate(&b, (const char *)f->data + cut, f->len - cut);
			SHA1DCUpdate(&c, (const char *)f->data + cut, f->len - cut);
			int rb = SHA1DCFinal(db, &b);
			int rc = SHA1DCFinal(dc, &c);
			to_hex(ha, da);
			to_hex(hb, db);
			to_hex(hc, dc);
			CHECK(ra != 0 && rb != 0 && rc != 0 && strcmp(ha, v->safe) == 0 && strcmp(hb, ha) == 0 &&
				      strcmp(hc, ha) == 0,
			      "%s, copied at byte %zu: %d %s / %d %s / %d %s, want %s", v->name, cut, ra, ha, rb, hb,
			      rc, hc, v->safe);
		}
	}
	group_done("copied contexts", before);

	/* Arbitrary data: plain SHA-1, in any pieces. */
	before = checks;
	{
		struct file r = read_file(NULL, argv[2]);
		const char *want = argv[3];
		static const size_t rchunks[] = { 0, 1, 3, 63, 64, 65, 4097 };
		for (size_t c = 0; c < sizeof rchunks / sizeof rchunks[0]; c++) {
			ret = hash_hex(r.data, r.len, rchunks[c], defaults, hex);
			CHECK(ret == 0 && strcmp(hex, want) == 0, "random data (%zu bytes), pieces of %zu: %d %s, want %s",
			      r.len, rchunks[c], ret, hex, want);
		}
		struct opts o = defaults;
		o.ubc = 0;
		ret = hash_hex(r.data, r.len, 0, o, hex);
		CHECK(ret == 0 && strcmp(hex, want) == 0, "random data, UBC off: %d %s", ret, hex);
		o = defaults;
		o.reduced_round = 1;
		ret = hash_hex(r.data, r.len, 0, o, hex);
		CHECK(ret == 0 && strcmp(hex, want) == 0, "random data, reduced-round on: %d %s", ret, hex);
		free(r.data);
	}
	group_done("random data", before);

	/* The collision callback. */
	struct call partner[MAX_CALLS];
	unsigned partner_n = 0;
	int expectations = 0;
	for (int i = 4; i < argc; i++) {
		struct expect e;
		if (!parse_expect(argv[i], &e)) {
			fprintf(stderr, "bad argument: %s\n", argv[i]);
			return 2;
		}
		test_callback(dir, &e, partner, &partner_n);
		expectations++;
	}
	CHECK(expectations == 4, "%d callback expectations given, want 4 (both files of both pairs)",
	      expectations);

	for (size_t i = 0; i < NVECTORS; i++)
		free(files[i].data);
	if (failures) {
		printf("%u of %u checks failed\n", failures, checks);
		return 1;
	}
	printf("all %u checks passed\n", checks);
	return 0;
}
