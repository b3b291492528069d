"""The keys an instance makes for itself on first start (plumbing/instance_keys.py): prerender's signing and
upstream service keys, coreapi's service key."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest

from plumbing.instance_keys import instance_key


def test_the_first_start_makes_a_key_only_its_owner_reads_and_the_next_ones_read_it(tmp_path: Path) -> None:
    path = tmp_path / "instance" / "secret-key"
    key = instance_key(path, min_length=32)
    assert len(key) == 64 and instance_key(path, min_length=32) == key
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_short_key_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "secret-key"
    path.write_text("x" * 31)
    with pytest.raises(ValueError, match="shorter than 32 characters"):
        instance_key(path, min_length=32)


def test_processes_racing_to_make_the_key_all_read_the_winner(tmp_path: Path) -> None:
    path = tmp_path / "racing" / "upstream-service-key"
    barrier = threading.Barrier(8)
    keys: list[str] = []

    def start() -> None:
        barrier.wait()
        keys.append(instance_key(path, min_length=32))

    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(keys) == 8 and set(keys) == {path.read_text()}


def test_a_key_file_still_being_written_is_waited_for(tmp_path: Path) -> None:
    """Another process made the file (O_EXCL) and has not written its key yet."""
    path = tmp_path / "upstream-service-key"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    key = "k" * 64

    def write_later() -> None:
        time.sleep(0.1)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(key)

    writer = threading.Thread(target=write_later)
    writer.start()
    try:
        assert instance_key(path, min_length=32) == key
    finally:
        writer.join()
