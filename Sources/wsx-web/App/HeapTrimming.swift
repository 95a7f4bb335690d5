import CMalloc

/// Keeps freed memory in the process for the next request instead of handing it back to the
/// kernel after every page.
///
/// glibc returns the free top of a heap to the kernel once it passes 128 KB. A server that builds
/// a 50–100 KB page per request then has the kernel unmap those pages after one request and fault
/// them in again, zeroed, on the next: page faults, `madvise` and TLB shootdowns across both cores
/// were 5% of a rendered channel page. Up to `keep` bytes of free heap now stay; blocks from
/// `ownMappingFrom` up still get a mapping of their own that goes back as soon as it is freed.
/// (Setting either turns off glibc's own adjustment of the mapping threshold, so both are set.)
enum HeapTrimming {
    static func apply(keep: Int32 = 8 << 20, ownMappingFrom: Int32 = 4 << 20) {
        mallopt(M_TRIM_THRESHOLD, keep)
        mallopt(M_MMAP_THRESHOLD, ownMappingFrom)
    }
}
