#!/usr/bin/python3
"""A model of an unsafe ATF reader, for the reader kit's test: it trusts the
counts, offsets and lengths it reads, and faults (SIGSEGV) the moment it
touches a byte past the end of the file's last page, as a C reader that maps
the file and indexes it by those values does. Reading inside the last page
does not fault (the page is mapped): that is why corpus cases that stay in
one page (n_idx_ftr_001_count_too_big_*) cannot catch such a reader, and the
cases of naive_reader_cases() in make_corpus.py can.

    naive_reader.py PATH        (PATH: an index.atf or detail.atf file)

Prints nothing useful; its only job is to fault or to exit 1 (reject).
"""
import os
import signal
import struct
import sys

PAGE = 4096


def touch(size, end):
    """An access to bytes below `end` of a file of `size` bytes mapped in pages."""
    if end > -(-size // PAGE) * PAGE:
        os.kill(os.getpid(), signal.SIGSEGV)


def main(path):
    data = open(path, "rb").read()
    size = len(data)
    if size < 64:
        return 1
    if data[:4] == b"ATI2":
        eo = struct.unpack_from("<Q", data, 32)[0]
        count = struct.unpack_from("<I" if data[5] == 1 else "<Q", data, 28 if data[5] == 1 else 24)[0]
        fo = struct.unpack_from("<Q", data, 40)[0]
        touch(size, eo + 64)                       # the first event
        touch(size, eo + count * 32)               # the last one the header claims
        touch(size, fo + 64)                       # the footer where the header says
        if size >= 64 + 64:
            fcount = struct.unpack_from("<Q", data, size - 64 + 8)[0]
            touch(size, eo + fcount * 32)          # the last one the footer claims
    elif data[:4] == b"ATD2":
        eo, count, blen = struct.unpack_from("<QQQ", data, 20)
        touch(size, eo + 24)
        touch(size, eo + blen + 64)                # the footer where the header says
        pos, n = eo, 0
        while n < min(count, 1 << 20) and pos + 24 <= size:
            total = struct.unpack_from("<I", data, pos)[0]
            touch(size, pos + max(total, 24))      # reads the whole event
            pos += max(total, 24)
            n += 1
    return 1                                       # rejects what it did not crash on


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
