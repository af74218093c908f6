/*
 * sha1dc/sha1.h: collision-detecting SHA-1, the C API of the reference
 * sha1collisiondetection library (Stevens and Shumow), implemented by
 * fastcrypt (crate fastcrypt-sha1dc, library libsha1detectcoll).
 *
 * Licence: MIT OR Apache-2.0, as the rest of fastcrypt.
 *
 * This header declares the same types and functions as the reference's
 * lib/sha1.h, with the same names, argument types and structure layout,
 * so that programs written and compiled for the reference (git built
 * with DC_SHA1_EXTERNAL, for one) build and link unchanged against this
 * library with -lsha1detectcoll, and binaries built against the
 * reference's libsha1detectcoll.so.1 run with this one in its place.
 *
 * Differences from the reference, all documented below: the collision
 * callback is called (the reference stores it and never calls it), and
 * the reference's internals sha1_compression_states(), ubc_check() and
 * sha1_dvs[] are not provided.
 * A NULL context or digest pointer, or a NULL buffer with a non-zero
 * length, aborts the process where the reference would dereference it.
 *
 * Macros the reference honours and this header keeps:
 *   SHA1DC_NO_STANDARD_INCLUDES            do not include <stdint.h> and
 *                                          <stddef.h>; the includer
 *                                          provides uint32_t, uint64_t
 *                                          and size_t itself.
 *   SHA1DC_CUSTOM_TRAILING_INCLUDE_SHA1_H  a header to include at the end
 *                                          of this one (written with its
 *                                          quotes or angle brackets).
 */

#ifndef SHA1DC_SHA1_H
#define SHA1DC_SHA1_H

#if defined(__cplusplus)
extern "C" {
#endif

#ifndef SHA1DC_NO_STANDARD_INCLUDES
#include <stddef.h>
#include <stdint.h>
#endif

/*
 * The reference's type for its step-T recompression functions (input
 * chaining value out, output chaining value out, the other block's
 * expanded message, the state before step T). Kept for source
 * compatibility; this library exports no function of this type.
 */
typedef void (*sha1_recompression_type)(uint32_t *, uint32_t *, const uint32_t *, const uint32_t *);

/*
 * Called once for every block found to be part of a collision attack, as
 *     callback(byte_offset, ihv1, ihv2, m1, m2)
 * byte_offset  the offset of the 64-byte block in the message (a multiple
 *              of 64; the padding blocks that SHA1DCFinal compresses
 *              count too);
 * ihv1         the block's input chaining value (5 words);
 * ihv2         the input chaining value of the colliding block that the
 *              detector reconstructed (5 words);
 * m1           the block's expanded message (80 words, big-endian loaded);
 * m2           the colliding block's expanded message (80 words).
 * The pointers are valid during the call only. The same values are left
 * in the context's ihv1, ihv2, m1 and m2 fields. The callback runs inside
 * SHA1DCUpdate or SHA1DCFinal and must not use the context it was called
 * for, nor change the data being hashed. It must return normally: a C++
 * exception thrown out of it aborts the process, and a longjmp out of it
 * is undefined behaviour.
 *
 * The upstream reference (up to its current HEAD) stores the callback in
 * SHA1DCSetCallback but never calls it; this library calls it as the
 * reference's header describes.
 */
typedef void (*collision_block_callback)(uint64_t, const uint32_t *, const uint32_t *, const uint32_t *, const uint32_t *);

/*
 * The hashing context. Allocate it anywhere (stack, heap, inside another
 * structure) and copy it with memcpy or assignment: it holds no pointer
 * into itself and no resource, and needs no cleanup. The layout is the
 * reference's, field for field.
 *
 *   total               bytes hashed so far
 *   ihv                 the chaining value
 *   buffer              the partial block not yet compressed
 *   found_collision     non-zero once an attack was detected (sticky until
 *                       SHA1DCInit)
 *   safe_hash, detect_coll, ubc_check, reduced_round_coll
 *                       the switches the setters below write; read on every
 *                       SHA1DCUpdate and SHA1DCFinal
 *   callback            see collision_block_callback (NULL: none)
 *   ihv1, ihv2, m1, m2  the last block found to be part of an attack, as
 *                       passed to the callback; zero (from SHA1DCInit)
 *                       until one is found (the reference writes ihv1 and
 *                       m1 for every block, this library only on detection)
 *   states              the reference's scratch space; kept for the
 *                       layout, zeroed by SHA1DCInit, not used otherwise
 */
typedef struct {
	uint64_t total;
	uint32_t ihv[5];
	unsigned char buffer[64];
	int found_collision;
	int safe_hash;
	int detect_coll;
	int ubc_check;
	int reduced_round_coll;
	collision_block_callback callback;

	uint32_t ihv1[5];
	uint32_t ihv2[5];
	uint32_t m1[80];
	uint32_t m2[80];
	uint32_t states[80][5];
} SHA1_CTX;

/*
 * Starts a new hash: SHA-1's initial chaining value, nothing hashed, no
 * collision found, safe hash on, detection on with the unavoidable bit
 * conditions filter, reduced-round detection off, no callback.
 */
void SHA1DCInit(SHA1_CTX *);

/*
 * Safe hash on (non-zero) or off (0); on after SHA1DCInit.
 * On, every block found to be part of an attack is compressed three times
 * instead of once (in effect, 240-step SHA-1 for that block), so colliding
 * inputs get different digests; data without an attack still hashes to
 * its plain SHA-1. Off, the digest is always plain SHA-1; SHA1DCFinal
 * still reports the attack.
 */
void SHA1DCSetSafeHash(SHA1_CTX *, int);

/*
 * Unavoidable bit conditions filter on (non-zero) or off (0); on after
 * SHA1DCInit. The filter skips most of the detector's work on ordinary
 * data; the answers are the same either way, off is much slower.
 */
void SHA1DCSetUseUBC(SHA1_CTX *, int);

/*
 * Collision detection on (non-zero) or off (0); on after SHA1DCInit.
 * Off, this is plain SHA-1 and SHA1DCFinal reports nothing new.
 */
void SHA1DCSetUseDetectColl(SHA1_CTX *, int);

/*
 * Also detect collisions of reduced-round SHA-1 (non-zero) or not (0);
 * off after SHA1DCInit. Meant for testing the detector.
 */
void SHA1DCSetDetectReducedRoundCollision(SHA1_CTX *, int);

/* Sets the collision callback; NULL for none (the default). */
void SHA1DCSetCallback(SHA1_CTX *, collision_block_callback);

/*
 * Hashes len bytes at buf. Any length, any number of calls; len 0 does
 * nothing (buf may then be NULL).
 */
void SHA1DCUpdate(SHA1_CTX *, const char *, size_t);

/*
 * Pads, finishes the hash and writes the 20-byte digest. Returns 0 when no
 * attack was detected in the message, non-zero when one was (warn the
 * user: the data is part of a collision attack). After this call the
 * context must be initialised again before hashing another message.
 */
int SHA1DCFinal(unsigned char[20], SHA1_CTX *);

#if defined(__cplusplus)
}
#endif

#ifdef SHA1DC_CUSTOM_TRAILING_INCLUDE_SHA1_H
#include SHA1DC_CUSTOM_TRAILING_INCLUDE_SHA1_H
#endif

#endif /* SHA1DC_SHA1_H */
