// zlib (gzip) and Brotli's encoder, for wsx-embed to compress Public/ at build time.
#include <zlib.h>
#include <brotli/encode.h>
