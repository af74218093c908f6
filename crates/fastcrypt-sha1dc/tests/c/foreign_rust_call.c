/*
 * Calls the second Rust static library (foreign_rust_lib.rs) before
 * main: a panic it unwinds and catches must come back as 46, not crash.
 */
#include <stdio.h>
#include <stdlib.h>

unsigned foreign_rust_work(unsigned n);

__attribute__((constructor)) static void call_foreign_rust(void)
{
	if (foreign_rust_work(10) != 46) {
		fputs("foreign_rust_work(10) is not 46\n", stderr);
		abort();
	}
}
