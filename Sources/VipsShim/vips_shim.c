#include "vips_shim.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <vips/vips.h>

// Size, orientation, bands, sample size and loader nickname ("VipsForeignLoadPngFile" -> "pngload").
static int read_header(VipsImage *image, const char *name, wsx_vips_image_info *info, char *loader, size_t loader_size);

static int init_result = -1;

static void init_once(void) {
    if (VIPS_INIT("wsx")) {
        init_result = -1;
        return;
    }
    // Loaders marked untrusted (svg, pdf, magick, ...) must never see user bytes.
    vips_block_untrusted_set(TRUE);
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    init_result = 0;
}

int wsx_vips_init(const char *argv0) {
    // libvips is process-wide: start it once, however many callers (tests build many apps at
    // once, and a second VIPS_INIT racing with running operations made thumbnails ignore
    // their options).
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    (void)argv0;
    pthread_once(&once, init_once);
    return init_result;
}

int wsx_vips_header(const void *buffer, size_t length, wsx_vips_image_info *info, char *loader, size_t loader_size) {
    const char *name = vips_foreign_find_load_buffer(buffer, length);
    if (name == NULL) {
        return -1;
    }
    VipsImage *image = vips_image_new_from_buffer(buffer, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (image == NULL) {
        return -1;
    }
    read_header(image, name, info, loader, loader_size);
    g_object_unref(image);
    return 0;
}

int wsx_vips_thumbnail(const void *buffer, size_t length, int width, int quality,
                       void **out, size_t *out_length, int *out_width, int *out_height) {
    VipsImage *thumbnail = NULL;
    if (vips_thumbnail_buffer((void *)buffer, length, &thumbnail, width,
                              "height", VIPS_MAX_COORD,
                              "size", VIPS_SIZE_DOWN,
                              NULL)) {
        return -1;
    }
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".jpg[Q=%d,strip]", quality);
    int failed = vips_image_write_to_buffer(thumbnail, suffix, out, out_length, NULL);
    if (!failed) {
        *out_width = vips_image_get_width(thumbnail);
        *out_height = vips_image_get_height(thumbnail);
    }
    g_object_unref(thumbnail);
    return failed ? -1 : 0;
}

static int read_header(VipsImage *image, const char *name, wsx_vips_image_info *info, char *loader, size_t loader_size) {
    info->width = vips_image_get_width(image);
    info->height = vips_image_get_height(image);
    info->bands = vips_image_get_bands(image);
    info->sample_bytes = (int)vips_format_sizeof(vips_image_get_format(image));
    int value = 1;
    if (vips_image_get_typeof(image, VIPS_META_ORIENTATION) != 0 &&
        vips_image_get_int(image, VIPS_META_ORIENTATION, &value) != 0) {
        value = 1;
    }
    info->orientation = value;
    if (loader != NULL && loader_size > 0) {
        const char *nickname = vips_nickname_find(g_type_from_name(name));
        snprintf(loader, loader_size, "%s", nickname ? nickname : name);
    }
    return 0;
}

int wsx_vips_header_file(const char *path, wsx_vips_image_info *info, char *loader, size_t loader_size) {
    const char *name = vips_foreign_find_load(path);
    if (name == NULL) {
        return -1;
    }
    VipsImage *image = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (image == NULL) {
        return -1;
    }
    read_header(image, name, info, loader, loader_size);
    g_object_unref(image);
    return 0;
}

int wsx_vips_thumbnail_file(const char *path, const char *out_path, int width, int quality,
                            int *out_width, int *out_height) {
    VipsImage *thumbnail = NULL;
    if (vips_thumbnail(path, &thumbnail, width,
                       "height", VIPS_MAX_COORD,
                       "size", VIPS_SIZE_DOWN,
                       "fail_on", VIPS_FAIL_ON_ERROR,
                       NULL)) {
        return -1;
    }
    VipsImage *srgb = NULL;
    VipsInterpretation interpretation = vips_image_guess_interpretation(thumbnail);
    if (interpretation != VIPS_INTERPRETATION_sRGB && interpretation != VIPS_INTERPRETATION_B_W) {
        if (vips_colourspace(thumbnail, &srgb, VIPS_INTERPRETATION_sRGB, NULL)) {
            g_object_unref(thumbnail);
            return -1;
        }
        g_object_unref(thumbnail);
        thumbnail = srgb;
    }
    char target[4096];
    snprintf(target, sizeof target, "%s[Q=%d,strip]", out_path, quality);
    int failed = vips_image_write_to_file(thumbnail, target, NULL);
    if (!failed) {
        *out_width = vips_image_get_width(thumbnail);
        *out_height = vips_image_get_height(thumbnail);
    }
    g_object_unref(thumbnail);
    return failed ? -1 : 0;
}

const char *wsx_vips_error(void) { return vips_error_buffer(); }

void wsx_vips_error_clear(void) { vips_error_clear(); }

void wsx_vips_free(void *pointer) { g_free(pointer); }
