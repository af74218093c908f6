/*
 * Named by -DSHA1DC_CUSTOM_TRAILING_INCLUDE_SHA1_H when macros.c is
 * compiled: <sha1dc/sha1.h> must include it at its end, after its
 * declarations (git's build uses the macro the same way).
 */
#define TRAILER_SEEN 1
typedef SHA1_CTX trailer_ctx_after_the_declarations;
