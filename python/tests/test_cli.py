"""gemmtune.cli: the binary's jobs as functions, against the real binary."""
import json

import pytest

import gemmtune
from gemmtune import cli


def test_query_a_table(gemmtune_bin, table_path):
    got = cli.query("4096x4096x4096", precision="fp16", table=table_path, binary=gemmtune_bin)
    assert got[0]["rule"] == "exact"
    assert got[0]["problem"]["m"] == 4096
    assert got[0]["kernel"]
    assert cli.query((100, 200, 300), precision="fp16", table=table_path,
                     binary=gemmtune_bin)[0]["problem"]["k"] == 300


def test_export_writes_the_cache_s_table(gemmtune_bin, tmp_path, table_path):
    db = tmp_path / "c.db"
    with pytest.raises(cli.CliError, match="no tuning cache") as e:
        cli.export(tmp_path / "never.json", db=db, binary=gemmtune_bin)
    assert e.value.returncode == 3
    cli.run(["import", str(table_path)], db=db, binary=gemmtune_bin)
    out = tmp_path / "table.json"
    table = cli.export(out, db=db, precision="fp16", binary=gemmtune_bin)
    assert table == json.loads(out.read_text())
    assert table["format"] == "gemmtune-table"
    imported = json.loads(table_path.read_text())
    assert {e["kernel"] for e in table["entries"]} == {e["kernel"] for e in imported["entries"]}


def test_failures_raise_with_the_binary_s_words(gemmtune_bin, tmp_path):
    with pytest.raises(cli.CliError) as e:
        cli.query("4096x4096", table=tmp_path / "none.json", binary=gemmtune_bin)
    assert e.value.returncode == 2
    assert isinstance(e.value, gemmtune.GemmError)
    with pytest.raises(cli.CliError, match="no gemmtune binary"):
        cli.find_binary(tmp_path / "not-there")
