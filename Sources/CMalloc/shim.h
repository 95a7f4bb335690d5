// glibc allocator tuning (mallopt) for HeapTrimming.
#include <malloc.h>
