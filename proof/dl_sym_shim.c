/* _dl_sym for the Paddle 2.0.2 wheel on glibc >= 2.34.
 *
 * The wheel's core_avx.so (through brpc, which looks up the real pthread mutex functions
 * it wraps) calls glibc's private _dl_sym, which glibc 2.34 removed: the import fails with
 * "undefined symbol: _dl_sym, version GLIBC_PRIVATE". `make legacy20-venv` builds this file
 * and loads it (RTLD_GLOBAL, from a .pth file) before paddle in .venv-legacy20 only.
 * RTLD_NEXT lookups are answered from libc itself: the caller defines the very functions
 * it is looking up, so "next after me" must not find its own wrappers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

void *_dl_sym(void *handle, const char *name, void *who)
{
    (void)who;
    if (handle == RTLD_NEXT || handle == RTLD_DEFAULT) {
        void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
        if (libc != NULL) {
            void *sym = dlsym(libc, name);
            if (sym != NULL)
                return sym;
        }
    }
    return dlsym(handle, name);
}
