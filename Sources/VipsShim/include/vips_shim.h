// Non-variadic wrappers around the parts of libvips wsx uses (libvips' API is variadic,
// which Swift cannot call).
#ifndef WSX_VIPS_SHIM_H
#define WSX_VIPS_SHIM_H

#include <stddef.h>

/// Starts libvips once per process: untrusted loaders blocked, no operation cache, one worker
/// thread per call (wsx runs thumbnails in its own bounded pool). Returns 0 on success.
int wsx_vips_init(const char *argv0);

/// What an image's header says, read without decoding pixels: size, EXIF orientation (1 when
/// absent), bands, bytes per sample (2 for 16-bit), and the loader's name (e.g. "pngload").
typedef struct {
    int width;
    int height;
    int orientation;
    int bands;
    int sample_bytes;
} wsx_vips_image_info;

/// Reads only the header of an image in memory into `info`, and the loader's name into `loader`
/// (at most `loader_size` bytes). Returns 0 on success, -1 when the bytes are not an image
/// libvips may load.
int wsx_vips_header(const void *buffer, size_t length, wsx_vips_image_info *info, char *loader, size_t loader_size);

/// Makes a JPEG thumbnail at most `width` pixels wide (never upscaled), auto-rotated by EXIF
/// orientation, metadata stripped. On success returns 0 and sets `*out`/`*out_length` (free with
/// `wsx_vips_free`) and the thumbnail's size.
int wsx_vips_thumbnail(const void *buffer, size_t length, int width, int quality,
                       void **out, size_t *out_length, int *out_width, int *out_height);

/// Reads only the header of an image file (see `wsx_vips_header`).
int wsx_vips_header_file(const char *path, wsx_vips_image_info *info, char *loader, size_t loader_size);

/// Writes a JPEG thumbnail of the image file at `path` to `out_path`: at most `width` pixels
/// wide (never upscaled), shrink-on-load, auto-rotated, converted to sRGB, metadata stripped.
/// `fail_on_error` makes truncated or corrupt input an error instead of grey pixels.
int wsx_vips_thumbnail_file(const char *path, const char *out_path, int width, int quality,
                            int *out_width, int *out_height);

/// The last libvips error message of this thread (empty when none); cleared by `wsx_vips_error_clear`.
const char *wsx_vips_error(void);
void wsx_vips_error_clear(void);
void wsx_vips_free(void *pointer);

#endif
