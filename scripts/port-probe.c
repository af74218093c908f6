/*
 * Which execution ports the AES-GCM kernels' instructions share on this
 * CPU: runs of independent 512-bit `vaesenc`, `vpclmulqdq`, `vpternlogq`
 * and `vpshufb`, alone and mixed, in cycles per loop iteration. Where two
 * kinds issue on different ports, a mix costs the larger of its parts;
 * where they share one, it costs their sum. docs/aes-gcm-variants.md
 * turns the figures into a bound for the fused AES-GCM loop.
 *
 *   gcc -O2 -march=native -o /tmp/port-probe scripts/port-probe.c && /tmp/port-probe
 *
 * Needs AVX-512 F/BW, VAES and VPCLMULQDQ. The clock comes from a loop of
 * one `dec`/`jnz` per cycle; the first row (8 `vaesenc` alone) checks it:
 * on a CPU that issues one 512-bit `vaesenc` per cycle it reads ~8.
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define ITERS 20000000L

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Core clock in Hz: one decrement-and-branch per cycle. */
static double clock_hz(void) {
  long n = ITERS * 10;
  double t = now();
  __asm__ volatile("1: dec %0; jnz 1b" : "+r"(n));
  return ITERS * 10 / (now() - t);
}

/* An empty statement that needs `v` in a register: keeps every chain
 * alive and stops the compiler from merging or moving them. */
#define KEEP(v) __asm__ volatile("" : "+v"(v));
#define EACH8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define EACH4(X) X(0) X(1) X(2) X(3)
/* Named variables, not arrays: GCC keeps arrays of vectors in memory. */
#define DECL8(j) __m512i a##j = k, c##j = k;
#define DECL4(j) __m512i x##j = k, s##j = k;
#define STEP8(j)                                               \
  if (j < na) a##j = _mm512_aesenc_epi128(a##j, k);            \
  if (j < nc) c##j = _mm512_clmulepi64_epi128(c##j, k, 0x01);  \
  KEEP(a##j) KEEP(c##j)
#define STEP4(j)                                                    \
  if (j < nx) x##j = _mm512_ternarylogic_epi64(x##j, k, c##j, 0x96); \
  if (j < ns) s##j = _mm512_shuffle_epi8(s##j, k);                  \
  KEEP(x##j) KEEP(s##j)

/* na `vaesenc`, nc `vpclmulqdq`, nx `vpternlogq`, ns `vpshufb` per
 * iteration, each on its own chain (na, nc <= 8; nx, ns <= 4). The counts
 * are constants where this is inlined, so the tests fold away. */
static inline __attribute__((always_inline)) double mix(int na, int nc, int nx, int ns) {
  __m512i k = _mm512_set1_epi32(0x12345);
  EACH8(DECL8)
  EACH4(DECL4)
  double t = now();
  for (long i = 0; i < ITERS; i++) {
    EACH8(STEP8)
    EACH4(STEP4)
  }
  return (now() - t) / ITERS;
}

/* One function per mix, so that every loop above is fully unrolled. */
#define MIX(name, na, nc, nx, ns) \
  static __attribute__((noinline)) double name(void) { return mix(na, nc, nx, ns); }
MIX(m0, 8, 0, 0, 0)
MIX(m1, 0, 8, 0, 0)
MIX(m2, 8, 8, 0, 0)
MIX(m3, 8, 0, 4, 0)
MIX(m4, 8, 0, 0, 4)
MIX(m5, 0, 8, 0, 4)
MIX(m6, 0, 0, 4, 4)
MIX(m7, 8, 4, 4, 4)
MIX(m8, 8, 4, 4, 2)

int main(void) {
  struct { const char *what; double (*f)(void); } rows[] = {
      {"8 vaesenc", m0},
      {"8 vpclmulqdq", m1},
      {"8 vaesenc + 8 vpclmulqdq", m2},
      {"8 vaesenc + 4 vpternlogq", m3},
      {"8 vaesenc + 4 vpshufb", m4},
      {"8 vpclmulqdq + 4 vpshufb", m5},
      {"4 vpternlogq + 4 vpshufb", m6},
      {"8 vaesenc + 4 vpclmulqdq + 4 vpternlogq + 4 vpshufb", m7},
      {"8 vaesenc + 4 vpclmulqdq + 4 vpternlogq + 2 vpshufb", m8},
  };
  double hz = clock_hz();
  printf("clock: %.2f GHz (dec/jnz loop)\n", hz / 1e9);
  printf("cycles per iteration, zmm, independent chains; best of 3 runs\n");
  for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
      double c = rows[i].f() * hz;
      if (c < best) best = c;
    }
    printf("%6.2f  %s\n", best, rows[i].what);
  }
  return 0;
}
