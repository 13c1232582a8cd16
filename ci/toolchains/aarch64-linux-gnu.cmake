# Cross toolchain for aarch64-linux-gnu (Debian's gcc-aarch64-linux-gnu), tests run under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Multiarch -dev packages (libjansson-dev:ARCH, libcmocka-dev:ARCH) put their .pc files here.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
# Programs are linked statically: under qemu-aarch64 7.2 (Debian 12) a
# dynamically linked program hangs in its first pthread_create() or fork()
# (static ones do not), and the recorder's tests need both.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
# FindPkgConfig resolves libraries through these cache entries: point them at
# static archives (Debian ships libjansson.a; ci/cross builds cmocka's static
# library from Debian's source and passes pkgcfg_lib_CMOCKA_cmocka itself).
set(pkgcfg_lib_JANSSON_jansson /usr/lib/aarch64-linux-gnu/libjansson.a CACHE FILEPATH "static jansson")
