# Cross toolchain for s390x-linux-gnu (Debian's gcc-s390x-linux-gnu), tests run under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/s390x-linux-gnu /usr/lib/s390x-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Multiarch -dev packages (libjansson-dev:ARCH, libcmocka-dev:ARCH) put their .pc files here.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/s390x-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x)
# Programs are linked statically: qemu-s390x 7.2 (Debian 12) aborts
# dynamically linked s390x programs at start-up here ("stack smashing
# detected" inside the loader); static programs run.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
# FindPkgConfig resolves libraries through these cache entries: point them at
# static archives (Debian ships libjansson.a; ci/cross builds cmocka's static
# library from Debian's source and passes pkgcfg_lib_CMOCKA_cmocka itself).
set(pkgcfg_lib_JANSSON_jansson /usr/lib/s390x-linux-gnu/libjansson.a CACHE FILEPATH "static jansson")
