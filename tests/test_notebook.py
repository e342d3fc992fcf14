"""muceval in a notebook: one call to evaluate, results as tables and data frames, the same
numbers as the commands."""

from __future__ import annotations

import importlib
import json
from importlib.resources import files
from pathlib import Path

import pytest

import muceval
from muceval.cli import main
from muceval.errors import UsageError

EXAMPLE = Path(str(files("muceval") / "data" / "example"))
KITCHEN = Path(str(files("muceval") / "data" / "kitchen"))
SYSTEMS = [EXAMPLE / f"{n}.txt" for n in ("alpha", "beta", "gamma")]
SETTINGS = muceval.SignificanceSettings(seed=7, shuffles=999, bootstrap=0)


@pytest.fixture(scope="module")
def evaluation() -> muceval.Evaluation:
    return muceval.evaluate(EXAMPLE / "key.txt", SYSTEMS, config=EXAMPLE / "config.toml",
                            history=EXAMPLE / "history.lisp")


def test_one_call_gives_the_scores_and_tests_of_the_commands(evaluation, tmp_path: Path,
                                                             capsys) -> None:
    scores = tmp_path / "scores.json"
    assert main(["score", "--key", str(EXAMPLE / "key.txt"), "--config",
                 str(EXAMPLE / "config.toml"), "--history", str(EXAMPLE / "history.lisp"),
                 "--format", "json", "-o", str(scores), *map(str, SYSTEMS)]) == 0
    capsys.readouterr()
    assert main(["significance", str(scores), "--seed", "7", "--shuffles", "999",
                 "--bootstrap", "0", "--format", "json"]) == 0
    from_files = json.loads(capsys.readouterr().out)
    result = evaluation.significance(SETTINGS)
    for name in evaluation.systems:
        for metric in ("recall", "precision", "f1"):
            assert evaluation.scores[name][metric] == from_files["systems"][name][metric]
    ours = {(c["a"], c["b"], c["metric"]): c["p_value"]
            for c in json.loads(result.to_json())["comparisons"]}
    theirs = {(c["a"], c["b"], c["metric"]): c["p_value"] for c in from_files["comparisons"]}
    assert ours == theirs


def test_results_are_data_frames_and_tables(evaluation) -> None:
    frame = evaluation.to_pandas()
    assert list(frame["system"]) == evaluation.ranking() == ["alpha", "beta", "gamma"]
    assert list(frame.columns[:5]) == ["rank", "system", "recall", "precision", "f1"]
    assert frame.loc[0, "f1"] == evaluation.scores["alpha"]["f1"]
    html = evaluation._repr_html_()
    assert html.index("alpha") < html.index("beta") < html.index("gamma")
    result = evaluation.significance(SETTINGS)
    pairs = result.to_pandas()
    assert len(pairs) == 3 * len(result.metrics)
    assert {"a", "b", "metric", "difference", "p_value", "significant"} <= set(pairs.columns)
    systems = result.to_pandas("systems")
    assert list(systems["system"]) == result.matrix_order
    assert "f1 letters" in systems.columns
    page = result._repr_html_()
    assert "seed 7" in page and "letters" in page
    with pytest.raises(UsageError) as error:
        result.to_pandas("pairs")
    assert error.value.parameter == "what"


def test_names_are_escaped_in_the_tables(tmp_path: Path) -> None:
    odd = tmp_path / "<b>odd<i>.txt"
    odd.write_text((EXAMPLE / "alpha.txt").read_text())
    ev = muceval.evaluate(EXAMPLE / "key.txt", [odd, SYSTEMS[1]], config=EXAMPLE / "config.toml")
    page = ev._repr_html_()
    assert "&lt;b&gt;odd&lt;i&gt;" in page and "<b>odd" not in page


def test_modern_keys_and_schemas_take_the_same_call() -> None:
    ev = muceval.evaluate(KITCHEN / "gold.jsonl", [KITCHEN / "alpha.jsonl",
                                                  KITCHEN / "beta.jsonl"],
                          schema=KITCHEN / "schema.toml")
    assert ev.scorer == "gtt" and ev.unit == "document"
    assert ev.counts["alpha"] == {"p_num": 18, "p_den": 19, "r_num": 18, "r_den": 19}
    exact = muceval.SignificanceSettings(method="exact", bootstrap=0)
    assert ev.significance(exact).comparison("alpha", "beta", "f1").p_value == 0.0625
    rme = muceval.evaluate(KITCHEN / "gold.jsonl", [KITCHEN / "alpha.jsonl"],
                           schema=KITCHEN / "schema.toml", scorer="ceaf-rme", phi="phi3")
    assert rme.scorer == "ceaf-rme (phi3)"


def test_options_of_the_other_kind_of_key_are_refused() -> None:
    with pytest.raises(UsageError) as error:
        muceval.evaluate(EXAMPLE / "key.txt", SYSTEMS, config=EXAMPLE / "config.toml",
                         scorer="gtt")
    assert error.value.parameter == "scorer"
    with pytest.raises(UsageError) as error:
        muceval.evaluate(KITCHEN / "gold.jsonl", [KITCHEN / "alpha.jsonl"],
                         schema=KITCHEN / "schema.toml", config=EXAMPLE / "config.toml")
    assert error.value.parameter == "config"


def test_an_error_analysis_is_a_data_frame_of_its_csv(tmp_path: Path) -> None:
    from muceval.pipelines.errors import analyse_errors

    analysis = analyse_errors(KITCHEN / "gold.jsonl", [KITCHEN / "alpha.jsonl",
                                                       KITCHEN / "beta.jsonl"],
                              schema=KITCHEN / "schema.toml")
    frame = analysis.to_pandas()
    lines = analysis.to_csv().splitlines()
    assert list(frame.columns) == lines[0].split(",")
    assert len(frame) == len(lines) - 1
    assert set(frame["row"]) >= {"total", "Cook", "Dish", "Place"}


def test_without_pandas_to_pandas_says_what_to_install(evaluation, monkeypatch) -> None:
    real = importlib.import_module

    def no_pandas(name: str, *args: object) -> object:
        if name == "pandas":
            raise ImportError(name)
        return real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib, "import_module", no_pandas)
    with pytest.raises(UsageError, match=r"pip install 'muceval\[notebook\]'"):
        evaluation.to_pandas()
    assert "<table" in evaluation._repr_html_()  # the table needs no pandas


def test_an_error_comparison_draws_its_seed_once_and_records_it() -> None:
    # With no seed given, each pair drew its own and the result recorded None.
    from muceval.pipelines.errors import analyse_errors, compare_errors

    analysis = analyse_errors(KITCHEN / "gold.jsonl", [KITCHEN / "alpha.jsonl",
                                                       KITCHEN / "beta.jsonl"],
                              schema=KITCHEN / "schema.toml")
    compared = compare_errors(analysis, muceval.SignificanceSettings(shuffles=99, bootstrap=0))
    assert compared.settings.seed is not None
    again = compare_errors(analysis, compared.settings)
    assert [c.p_value for c in again.changes] == [c.p_value for c in compared.changes]


def test_the_report_figures_draw_inline_and_save(evaluation, tmp_path: Path) -> None:
    """A notebook draws a figure of the report from its _repr_svg_; save writes SVG or PNG."""
    result = evaluation.significance(SETTINGS)
    groups = muceval.groups_plot(result, "f1")
    drawn = groups._repr_svg_()
    assert drawn.startswith("<svg") and drawn.rstrip().endswith("</svg>")
    assert all(f"score-{name}" in drawn for name in evaluation.systems)
    matrix = muceval.matrix_plot(result, "recall")
    assert "cell-" in matrix._repr_svg_()
    assert groups.save(tmp_path / "groups.svg").read_text() == groups.svg()
    assert matrix.save(tmp_path / "matrix.png").read_bytes()[:4] == b"\x89PNG"


def test_the_example_notebook_runs_from_start_to_end(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/muceval.ipynb, executed in a fresh kernel as a reader would run it (nbclient);
    # the report it writes to a temporary folder goes under tmp_path.
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("TMPDIR", str(tmp_path))

    notebook = nbformat.read(Path(__file__).parent.parent / "docs" / "muceval.ipynb",
                             as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells)  # kept without outputs
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [cell.outputs for cell in notebook.cells if cell.cell_type == "code"]
    kinds = [{kind for output in cell for kind in output.get("data", {})} for cell in outputs]
    assert all(output.output_type != "error" for cell in outputs for output in cell)
    assert sum("text/html" in k for k in kinds) >= 5     # the tables show themselves
    assert sum("image/svg+xml" in k for k in kinds) == 2  # and the figures draw inline
    printed = "".join(o.text for cell in outputs for o in cell if o.output_type == "stream")
    assert "gamma" in printed and "worse" in printed      # the A/B verdicts
    assert "report.html" in str(outputs[8][0].data["text/plain"])
    assert list(tmp_path.glob("*/example-report/report.html"))
