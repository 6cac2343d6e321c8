#!/usr/bin/env python3
"""Writes tests/data/lmdb: LMDB databases for LMDBReader and LMDBDataset, made with the `lmdb`
binding of Debian's and PyPI's liblmdb (TensorFlow 2.21 no longer runs LMDB: its LMDBReader and
LMDBDataset were removed, so the reference is TensorFlow 1.x's documented behaviour: each
entry's key and value in the database's key order, which the cursor below reads back).

    /root/.cache/af-tf/bin/pip install lmdb
    /root/.cache/af-tf/bin/python scripts/peers/make_lmdb_fixtures.py tests/data/lmdb

It writes
  db/data.mdb     a database in a directory (its lock file removed: readers open it with
                  MDB_NOLOCK): 12 entries, keys inserted out of order, binary values with
                  zero bytes, an empty value and one of 9000 bytes (an overflow page)
  single.mdb      a database in one file (MDB_NOSUBDIR): 3 entries
  empty.mdb       a database with no entries
  not_lmdb.mdb    4096 bytes that are not an LMDB file
  expected.json   per database, its entries in cursor order as [key, value] pairs of hex
Never a dependency of the build or the tests.
"""
import json
import os
import shutil
import sys

import lmdb


def write(path, entries, subdir):
    env = lmdb.open(path, map_size=1 << 22, subdir=subdir)
    with env.begin(write=True) as txn:
        for k, v in entries:
            txn.put(k, v)
    env.close()
    lock = os.path.join(path, "lock.mdb") if subdir else path + "-lock"
    os.remove(lock)


def read(path, subdir):
    env = lmdb.open(path, readonly=True, lock=False, subdir=subdir)
    with env.begin() as txn:
        out = [[k.hex(), v.hex()] for k, v in txn.cursor()]
    env.close()
    return out


def main(out):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "db"))
    entries = [(b"key%02d" % i, bytes([i, 0, 255 - i]) * (i + 1)) for i in (7, 3, 11, 0, 5)]
    entries += [(b"a", b""), (b"z\x00bin", b"\x00\x01\x02"), (b"big", bytes(range(256)) * 35 + b"!" * 40)]
    entries += [(b"key%02d" % i, b"value %d" % i) for i in (1, 2, 4, 6)]
    write(os.path.join(out, "db"), entries, True)
    write(os.path.join(out, "single.mdb"), [(b"2", b"two"), (b"1", b"one"), (b"3", b"three")],
          False)
    write(os.path.join(out, "empty.mdb"), [], False)
    with open(os.path.join(out, "not_lmdb.mdb"), "wb") as f:
        f.write(b"not an lmdb file\n" * 240 + b"x" * 16)
    expected = {"db": read(os.path.join(out, "db"), True),
                "single.mdb": read(os.path.join(out, "single.mdb"), False),
                "empty.mdb": read(os.path.join(out, "empty.mdb"), False)}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/lmdb")
