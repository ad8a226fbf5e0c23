#ifndef C_ZLIB_SHIM_H
#define C_ZLIB_SHIM_H

// The system's zlib for the engine's body decoder (ContentDecoder.swift). `inflateInit2` is a macro, which Swift
// cannot call, so it is wrapped here.
#include <zlib.h>

/// `inflateInit2(stream, windowBits)`: 15 + 32 reads a zlib or gzip stream, -15 a raw deflate stream.
static inline int czlibshim_inflate_init(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
