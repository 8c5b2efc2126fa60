"""Size and depth limits on the config file, and the decoder's fast path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawharness.config.loader import load_config, parse_config
from clawharness.config.source import (
    MAX_CONFIG_BYTES,
    MAX_CONFIG_DEPTH,
    decode_config_text,
    read_config_file,
)
from clawharness.errors import ConfigError


def test_a_config_nested_5000_levels_is_a_clear_error_not_a_recursion_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deep.json5"
    path.write_text("{a:" * 5000 + "1" + "}" * 5000)
    with pytest.raises(ConfigError) as caught:
        load_config(path, env={})
    message = str(caught.value)
    assert str(path) in message and f"the limit is {MAX_CONFIG_DEPTH}" in message
    assert len(message) < 400
    lists = tmp_path / "lists.json"
    lists.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(ConfigError, match="nested"):
        load_config(lists, env={})


def test_a_decoded_value_nested_too_deep_is_refused_without_recursion() -> None:
    raw: dict[str, object] = {}
    node = raw
    for _ in range(5000):
        child: dict[str, object] = {}
        node["a"] = child
        node = child
    with pytest.raises(ConfigError, match=f"the limit is {MAX_CONFIG_DEPTH}"):
        parse_config({"plugins": {"entries": {"x": {"config": raw}}}})


def test_brackets_inside_strings_and_comments_do_not_count_as_depth() -> None:
    text = '{ // [[[[ {{{{\n a: "' + "[" * 500 + '", /* ' + "{" * 500 + " */ b: 1 }"
    assert decode_config_text(text).raw == {"a": "[" * 500, "b": 1}


def test_a_file_over_the_size_limit_is_refused_with_the_size_and_the_limit(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"x": "y" * MAX_CONFIG_BYTES}))
    with pytest.raises(ConfigError) as caught:
        read_config_file(path)
    assert str(path) in str(caught.value)
    assert f"the limit is {MAX_CONFIG_BYTES:,} bytes" in str(caught.value)


def test_unreadable_inputs_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="directory"):
        read_config_file(tmp_path)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ConfigError, match="not UTF-8"):
        read_config_file(binary)
    huge_int = tmp_path / "int.json5"
    huge_int.write_text("{a: " + "9" * 5000 + "}")
    with pytest.raises(ConfigError, match="malformed"):
        read_config_file(huge_int)


def test_json_and_json5_decode_alike() -> None:
    assert decode_config_text('{"a": [1, 2.5, null, true]}').raw == {"a": [1, 2.5, None, True]}
    assert decode_config_text("{a: [1, 2.5, null, true,], /* c */}").raw == {
        "a": [1, 2.5, None, True]}
    assert decode_config_text("  \n").raw == {}


def test_a_fifo_socket_or_device_as_config_is_refused_at_once(tmp_path: Path) -> None:
    # issue 31: `--config` naming a FIFO nobody writes to hung forever in open()
    import os
    import socket
    import subprocess
    import sys

    fifo = tmp_path / "config.json5"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "clawharness", "status", "--config",
                           str(fifo)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "CLAWHARNESS_STATE_DIR": str(tmp_path)})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "is a FIFO (named pipe), not a regular file" in done.stderr + done.stdout
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "sock"))
        with pytest.raises(ConfigError, match="is a socket, not a regular file"):
            read_config_file(tmp_path / "sock")
    with pytest.raises(ConfigError, match="is a device, not a regular file"):
        read_config_file(Path("/dev/null"))
    with pytest.raises(ConfigError, match="is a directory, not a regular file"):
        read_config_file(tmp_path)
    # a symbolic link to a regular file is read as that file
    real = tmp_path / "real.json5"
    real.write_text("{tools: {deny: ['exec']}}")
    (tmp_path / "link.json5").symlink_to(real)
    assert read_config_file(tmp_path / "link.json5").raw == {"tools": {"deny": ["exec"]}}
