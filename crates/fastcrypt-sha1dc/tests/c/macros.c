/*
 * The reference header's configuration macros, as git's build uses them
 * (compiled only, with -DSHA1DC_NO_STANDARD_INCLUDES and
 * -DSHA1DC_CUSTOM_TRAILING_INCLUDE_SHA1_H="\"trailer.h\"").
 *
 * SHA1DC_NO_STANDARD_INCLUDES: the includer provides uint32_t, uint64_t
 * and size_t, and the header includes no standard header of its own.
 * The types come from the compiler's predefined macros (GCC and Clang),
 * so that <stdint.h> and <stddef.h> stay out.
 */
#ifndef SHA1DC_NO_STANDARD_INCLUDES
#error "compile with -DSHA1DC_NO_STANDARD_INCLUDES"
#endif

typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __SIZE_TYPE__ size_t;

#include <sha1dc/sha1.h>

#ifdef INT32_MAX
#error "<sha1dc/sha1.h> included <stdint.h> despite SHA1DC_NO_STANDARD_INCLUDES"
#endif
#ifdef offsetof
#error "<sha1dc/sha1.h> included <stddef.h> despite SHA1DC_NO_STANDARD_INCLUDES"
#endif
#ifndef TRAILER_SEEN
#error "<sha1dc/sha1.h> did not include SHA1DC_CUSTOM_TRAILING_INCLUDE_SHA1_H"
#endif

/* The declarations are usable as the reference's are. */
int macros_hash(unsigned char out[20], const char *data, size_t len);
int macros_hash(unsigned char out[20], const char *data, size_t len)
{
	trailer_ctx_after_the_declarations ctx;
	SHA1DCInit(&ctx);
	SHA1DCSetSafeHash(&ctx, 0);
	SHA1DCUpdate(&ctx, data, len);
	return SHA1DCFinal(out, &ctx);
}
