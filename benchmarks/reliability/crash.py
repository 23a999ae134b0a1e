"""Crash benchmark: SIGKILL the driver of a run at random moments, resume it, and compare
the finished study with an uninterrupted run of the same seed.

For a few methods of each family, sequentially (``executor=None``) and in batches of 3 on
worker processes (``executor="process"``), a driver (``driver.py``) runs a study of 14
evaluations (24 in batches; d = 3, 4 initial points). The harness kills it ``--kills``
times (fewer if the run ends first; ``--repeats`` runs per method and mode), each time at a
random moment. The first ``--creation`` kills of a run, while its store has no trial yet,
land in the creation of the store and the study: a third within 10 ms of the store file
appearing, a third within 10 ms of the study's row appearing (while its lease is taken
and its initial design asked), a third a random time within the reference run's set-up
(from the driver's start to its first evaluation: optimizer, store, study, lease). Of the
others a quarter land in the set-up of a resume (store, lease, replay of the history),
the rest a random time after the driver has started a new evaluation (during
evaluations, proposals and store writes). After each kill the harness reads from the
store where the kill landed, counts the driver's processes (its session) still alive 5 s
later, then starts the driver again, until the study is finished.

Drivers are forked from "zygote" interpreters that imported isoline once (a fresh
interpreter costs seconds of imports per restart, more than the run); two zygotes with
different ``PYTHONHASHSEED`` take turns at the restarts, a third makes the reference run.

Measured per run: kills and where they landed; evaluations lost (budget minus finished
trials); committed evaluations run again (must be 0); evaluations run again because a kill
stopped them before their result was committed, by cause (in flight in the driver, in
flight in a worker, finished in a worker after the driver died, finished but not yet
committed), from the objective's start/end log; whether x, y and the row of outputs of
every stored trial, and the finished run's ``Result.x_iters`` and ``Result.values``, equal
the uninterrupted run's; processes left behind. Results append to ``WORK/rows.jsonl`` (a
rerun skips rows already there); ``--report`` writes ``NAME.md`` and its JSON (``--name``,
default ``README.md`` and ``crash.json``) into ``--out``.

``--spec`` chooses the output specifications (``driver.SPECS``): ``objective`` (default,
the rows above), ``two-objectives`` and ``constrained``, each with its own default methods
(:data:`SPEC_METHODS`: every method that handles it, batched where it batches). Rows
record their ``spec``.

    nice -n 19 .venv/bin/python benchmarks/reliability/crash.py --work /tmp/crash
    .venv/bin/python benchmarks/reliability/crash.py --work /tmp/crash --report
    nice -n 10 .venv/bin/python benchmarks/reliability/crash.py --work /tmp/crash-outputs \
        --spec two-objectives constrained --name crash_outputs
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from isoline.bench.report import git_commit

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "driver.py"
#: evaluations per study: sequentially, and in batches of 3 (8 batches)
BUDGETS = {1: 14, 3: 24}


def session_members(sid: int) -> list[int]:
    """Live (not zombie) processes of session ``sid``."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == sid and _state(int(entry)) not in ("Z", "X"):
                    out.append(int(entry))
            except (ProcessLookupError, OSError):
                continue
    return out


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as fh:
        stat = fh.read()
    return stat[stat.rindex(")") + 2]


def describe(pid: int) -> str:
    """``STATE command line`` of a live process, for the record."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
        return f"{_state(pid)} {cmd[:120]}"
    except OSError:
        return "gone"


def left_behind(sid: int, wait: float = 5.0, seen: list[str] | None = None) -> int:
    """Live processes of the killed driver's session ``wait`` s later; zombies (exited,
    waiting to be reaped) are not counted. With ``seen``, such processes are described
    into it and given 25 s more to end by themselves (how many did not is noted there);
    the rest are then killed."""
    deadline = time.time() + wait
    while session_members(sid) and time.time() < deadline:
        time.sleep(0.1)
    rest = session_members(sid)
    if seen is not None and rest:
        seen += [describe(pid) for pid in rest]
        deadline = time.time() + 25.0  # do they end by themselves, later?
        while session_members(sid) and time.time() < deadline:
            time.sleep(0.2)
        late = session_members(sid)
        seen.append(f"{len(late)} of them still there 30 s after the kill")
        rest = late
    for pid in rest:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(rest)


def progress(db: Path, study: str) -> tuple[int, list[tuple]]:
    """(a counter that grows with every evaluation started, trial stored or trial
    finished; the finished trials as (number, x, y, outputs), outputs the stored JSON
    text of the trial's row of outputs, or None)."""
    if not db.exists():
        return 0, []
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            rows = conn.execute(
                "SELECT t.number, t.x, t.y, t.status, t.attempts, t.outputs FROM trials t "
                "JOIN studies s "
                "ON t.study_id = s.study_id WHERE s.name = ? ORDER BY t.number",
                (study,),
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return 0, []
    finished = [(r[0], json.loads(r[1]), r[2], r[5]) for r in rows if r[3] != "pending"]
    return sum(r[4] for r in rows) + len(rows) + len(finished), finished


#: where a kill landed, judged from the store right after it
PHASES = ("before the store", "store creation", "store made, no study", "study created, no trial",
          "run")  # fmt: skip


def phase(db: Path, study: str) -> str:
    """Which of :data:`PHASES` the store shows (``"unreadable"`` if it cannot be read)."""
    if not db.exists():  # (in WAL mode the file itself may stay empty: read it through SQLite)
        return PHASES[0]
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            if not {"meta", "studies", "trials", "leases"} <= tables:
                return PHASES[1]
            if not conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone():
                return PHASES[1]
            row = conn.execute("SELECT study_id FROM studies WHERE name = ?", (study,)).fetchone()
            if row is None:
                return PHASES[2]
            (n,) = conn.execute("SELECT COUNT(*) FROM trials WHERE study_id = ?", row).fetchone()
            return PHASES[3] if n == 0 else PHASES[4]
        finally:
            conn.close()
    except sqlite3.Error:
        return "unreadable"


def has_study(db: Path, study: str) -> bool:
    """Whether the store at ``db`` has a row for ``study`` (False if it cannot be read)."""
    if not db.exists():
        return False
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.1)
        try:
            return bool(conn.execute("SELECT 1 FROM studies WHERE name = ?", (study,)).fetchone())
        finally:
            conn.close()
    except sqlite3.Error:
        return False


class Zygote:
    """A ``driver.py --zygote`` process with its own ``PYTHONHASHSEED``, forking drivers."""

    def __init__(self, hashseed: int) -> None:
        env = dict(os.environ, PYTHONHASHSEED=str(hashseed))
        self.proc = subprocess.Popen([sys.executable, str(DRIVER), "--zygote"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip

    def start(self, args: list[str]) -> int:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(args) + "\n")
        self.proc.stdin.flush()
        return int(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def running(pid: int) -> bool:
    """Whether the forked driver ``pid`` still runs (an exited one stays a zombie of its
    zygote until reaped)."""
    try:
        return _state(pid) not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return False


def events(log: Path) -> list[tuple[str, int, int, float]]:
    """The driver log's ``(event, number, pid, time)`` lines."""
    if not log.exists():
        return []
    out = []
    for line in log.read_text().splitlines():
        parts = line.split()
        if len(parts) == 4:
            out.append((parts[0], int(parts[1]), int(parts[2]), float(parts[3])))
    return out


def wait_for(pred: object, pid: int, step: float = 0.002) -> None:
    while running(pid) and not pred():  # type: ignore[operator]
        time.sleep(step)


#: causes of an evaluation being run again after a kill
CAUSES = ("in flight in the driver", "in flight in a worker", "finished in a worker after the "
          "driver died", "finished, not yet committed")  # fmt: skip


def rerun_causes(lives: list[dict]) -> dict[str, int]:
    """Each evaluation started in a killed life and not committed by it, by cause."""
    out = dict.fromkeys(CAUSES, 0)
    for life in lives:
        if life["kill_time"] is None:
            continue
        ends = {(n, pid): t for e, n, pid, t in life["events"] if e == "end"}
        for e, n, pid, _ in life["events"]:
            if e != "start" or n in life["committed"]:
                continue
            end = ends.get((n, pid))
            if end is None:
                out[CAUSES[0] if pid == life["pid"] else CAUSES[1]] += 1
            elif pid != life["pid"] and end > life["kill_time"]:
                out[CAUSES[2]] += 1
            else:
                out[CAUSES[3]] += 1
    return out


def result_record(log: Path) -> str | None:
    """The JSON text of the result a driver wrote on exit (``LOG.result.json``), if any."""
    path = Path(f"{log}.result.json")
    return path.read_text() if path.exists() else None


def run_row(method: str, mode: str, q: int, executor: str, kills: int, creation: int,
            work: Path, rng: random.Random, rep: int, zygotes: list[Zygote],
            spec: str = "objective") -> dict:  # fmt: skip
    """One study killed ``kills`` times, the first ``creation`` of them (while it has no
    trial yet) in the store's and study's creation; ``zygotes[0]`` makes the reference
    run, the others take turns at the restarts. ``spec``: the driver's output
    specification (``driver.SPECS``)."""
    key = f"{method}.{mode}.{rep}" if spec == "objective" else f"{spec}.{method}.{mode}.{rep}"
    study = key
    ref_db, db = work / f"{key}.ref.db", work / f"{key}.crash.db"
    for p in (ref_db, db):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{p}{suffix}").unlink(missing_ok=True)

    def args(path: Path, log: Path) -> list[str]:
        return [str(path), study, method, str(q), executor, str(log), str(BUDGETS[q]), spec]

    ref_log = work / f"{key}.ref.log"
    ref_log.unlink(missing_ok=True)
    Path(f"{ref_log}.result.json").unlink(missing_ok=True)
    pid = zygotes[0].start(args(ref_db, ref_log))
    wait_for(lambda: False, pid, 0.01)
    ref_events = events(ref_log)
    if not any(e == "exit" for e, *_ in ref_events):
        err = Path(f"{ref_log}.err").read_text()[-500:]
        return {"method": method, "mode": mode, "spec": spec, "rep": rep,
                "error": err or "reference died"}  # fmt: skip
    _, ref_trials = progress(ref_db, study)
    ref_result = result_record(ref_log)
    ready = min(t for e, _, _, t in ref_events if e == "ready")
    first = min(t for e, _, _, t in ref_events if e == "start")
    last = max(t for e, _, _, t in ref_events if e == "end")
    ref_time = max(t for e, _, _, t in ref_events if e == "exit") - ready
    setup = first - ready  # imports done to the first evaluation: store, study, design
    per_batch = (last - first) / (BUDGETS[q] // q)
    done_kills = restarts = repeated = orphans = 0
    phases: dict[str, int] = {}
    lives: list[dict] = []
    leftovers: list[str] = []
    error = None
    while True:
        starts_before, finished = progress(db, study)
        finished_before = {n for n, *_ in finished}
        log = work / f"{key}.{restarts}.log"
        log.unlink(missing_ok=True)
        Path(f"{log}.result.json").unlink(missing_ok=True)
        zygote = zygotes[1 + restarts % (len(zygotes) - 1)]
        pid = zygote.start(args(db, log))
        restarts += 1
        kill_time = None
        if done_kills < kills:
            wait_for(lambda log=log: any(e == "ready" for e, *_ in events(log)), pid)
            if done_kills < creation and starts_before == 0:
                target = rng.random()
                if target < 1 / 3:  # just after the store file appears
                    wait_for(db.exists, pid, 0.0005)
                    deadline = time.time() + rng.uniform(0.0, 0.01)
                elif target < 2 / 3:  # just after the study's row appears
                    wait_for(lambda: has_study(db, study), pid, 0.001)
                    deadline = time.time() + rng.uniform(0.0, 0.01)
                else:
                    deadline = time.time() + rng.uniform(0.0, 1.2 * setup)
            elif rng.random() < 0.25:  # start-up: store, lease, replay of the history
                deadline = time.time() + rng.uniform(0.0, 1.5 * setup)
            else:
                wait_for(lambda n=starts_before: progress(db, study)[0] > n, pid, 0.01)
                deadline = time.time() + rng.uniform(0.0, 2.0 * per_batch)
            while running(pid) and time.time() < deadline:
                time.sleep(0.001)
            if running(pid):
                kill_time = time.time()
                os.kill(pid, signal.SIGKILL)
                wait_for(lambda: False, pid, 0.001)
                done_kills += 1
                where = phase(db, study)
                phases[where] = phases.get(where, 0) + 1
                orphans += left_behind(pid, seen=leftovers)
        wait_for(lambda: False, pid, 0.01)
        evs = events(log)
        _, finished_now = progress(db, study)
        lives.append({"pid": pid, "kill_time": kill_time, "events": evs,
                      "committed": {n for n, *_ in finished_now}})  # fmt: skip
        repeated += sum(e == "start" and n in finished_before for e, n, _, _ in evs)
        if any(e == "exit" for e, *_ in evs):
            break
        if kill_time is None:
            error = Path(f"{log}.err").read_text()[-500:] or "driver died"
            break
        if restarts > 10 * kills + 20:
            error = "no progress"
            break
    _, final = progress(db, study)
    # x and y as JSON texts: NaN compares equal to NaN, and floats bit for bit
    same = [json.dumps(a[1:3]) for a in final] == [json.dumps(b[1:3]) for b in ref_trials]
    same_outputs = [a[3] for a in final] == [b[3] for b in ref_trials]
    # the finished run's Result (x_iters, values) against the reference's
    same_result = ref_result is not None and result_record(log) == ref_result
    starts: dict[int, int] = {}
    for life in lives:
        for e, n, _, _ in life["events"]:
            if e == "start":
                starts[n] = starts.get(n, 0) + 1
    return {
        "method": method, "mode": mode, "spec": spec, "rep": rep, "batch_size": q,
        "executor": executor,
        "kills": done_kills, "restarts": restarts, "phases": phases,
        "lost": BUDGETS[q] - len(final), "repeated_finished": repeated,
        "reruns": sum(c - 1 for c in starts.values()), "rerun_causes": rerun_causes(lives),
        "identical": same and same_outputs and same_result and len(final) == len(ref_trials),
        "identical_trials": same, "identical_outputs": same_outputs,
        "identical_result": same_result, "orphans": orphans,
        "left_behind": leftovers, "ref_seconds": round(ref_time, 2), "error": error,
    }  # fmt: skip


def report(work: Path, out: Path, command: str, seconds: float | None,
           name: str = "README") -> None:  # fmt: skip
    """Write ``NAME.md`` and its rows and totals as JSON (``crash.json`` for ``README``,
    else ``NAME.json``) into ``out``."""
    rows = [json.loads(line) for line in (work / "rows.jsonl").read_text().splitlines()]
    multi = {r.get("spec", "objective") for r in rows} != {"objective"}  # a spec column
    commit = git_commit(HERE)
    tot: dict = {
        k: sum(r.get(k, 0) or 0 for r in rows)
        for k in ("kills", "lost", "repeated_finished", "reruns", "orphans")
    }
    tot["identical"] = sum(bool(r.get("identical")) for r in rows)
    tot["rows"] = len(rows)
    tot["phases"] = {p: sum(r.get("phases", {}).get(p, 0) for r in rows) for p in PHASES}
    tot["rerun_causes"] = {c: sum(r.get("rerun_causes", {}).get(c, 0) for r in rows)
                           for c in CAUSES}  # fmt: skip
    creation = sum(v for k, v in tot["phases"].items() if k != "run")
    tot["alive_5s"] = sum(_alive_at_5(r) for r in rows)
    out.mkdir(parents=True, exist_ok=True)
    (out / ("crash.json" if name == "README" else f"{name}.json")).write_text(json.dumps({"commit": commit, "command": command,
                                                "seconds": seconds, "totals": tot,
                                                "rows": rows}, indent=1))  # fmt: skip
    phases = ", ".join(f"{v} {k}" for k, v in tot["phases"].items())
    causes = ", ".join(f"{v} {k}" for k, v in tot["rerun_causes"].items())
    took = f" in {seconds / 60:.0f} minutes" if seconds else ""
    lines = [
        "# Crash benchmark: random SIGKILLs of the driver, then resume",
        "",
        f"Made by `{command}`{took}, library at commit `{commit}`.",
        "Each row: one study of 14 evaluations (24 in batches of 3; d = 3, 4 initial points,",
        "seed 7, a sphere with its minimum near a bound, 50 ms per evaluation) killed at random",
        "moments, the first kills while the store and the study are being created, and resumed",
        "until finished, compared trial by trial with an uninterrupted run. Drivers are forked",
        "from interpreters that imported isoline once (two, with different `PYTHONHASHSEED`,",
        "take turns, so every resume runs under another hash seed than the life before it).",
        "See `benchmarks/reliability/crash.py` for the protocol.",
        *(SPEC_TEXT if multi else ()),
        "",
        f"**Totals over {tot['rows']} runs: {tot['kills']} kills ({creation} before the first "
        f"trial: {phases}), {tot['lost']} evaluations lost, {tot['repeated_finished']} "
        f"committed evaluations run again, {tot['identical']} of {tot['rows']} trajectories "
        f"identical to the uninterrupted run, {tot['alive_5s']} processes of a killed driver "
        f"still alive 5 s after the kill and {tot['orphans']} 30 s after it.**",
        "",
        f"**Evaluations run again because a kill stopped them before their result was "
        f"committed: {tot['reruns']} ({causes}).**",
        "",
        "Where a kill landed is read from the store right after it: no file yet (the",
        "optimizer is being built), the file without its complete schema (store creation),",
        "the store without the study, the study without a trial (study creation, lease,",
        "initial design), or the run.",
        "",
        ("| outputs " if multi else "")
        + "| method | mode | kill seed/run | kills | of them before a trial | restarts | lost "
        "| committed re-run "
        "| re-run: in flight (driver) | in flight (worker) | finished in worker after kill "
        "| finished, not committed | identical | alive 5 s after | 30 s after | error |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        + ("---|" if multi else ""),
    ]
    for r in rows:
        c = r.get("rerun_causes", {})
        early = sum(v for k, v in r.get("phases", {}).items() if k != "run")
        lines.append(
            (f"| {r.get('spec', 'objective')} " if multi else "")
            + f"| {r['method']} | {r['mode']} | {r.get('kill_seed', 0)}/{r.get('rep', 0)} | "
            f"{r.get('kills', '-')} | "
            f"{early} | {r.get('restarts', '-')} | {r.get('lost', '-')} | "
            f"{r.get('repeated_finished', '-')} | "
            + " | ".join(str(c.get(k, "-")) for k in CAUSES)
            + f" | {'yes' if r.get('identical') else 'no'} | {_alive_at_5(r)} | "
            f"{r.get('orphans', '-')} | "
            f"{(r.get('error') or '').strip().splitlines()[-1:] or ''} |"
        )
    (out / f"{name}.md").write_text("\n".join(lines) + "\n")


#: the report's words on the output specifications other than one objective
SPEC_TEXT = (
    "",
    "Output specifications (`--spec`, the `outputs` column): `objective` as above (a number,",
    "`iso.minimize`); `two-objectives`: `f` returns `{f, g}`, `f` the sphere (minimized) and",
    '`g = -|x + 1|^2` (maximized), through `iso.optimize(..., objectives=["f", "g"],',
    'directions=["minimize", "maximize"])`; `constrained`: `{f, c}` with',
    "`c = sum(x) - 1` (feasible when `<= 0`, which cuts off the sphere's minimum),",
    '`constraints=["c"]`. Identical means: every stored trial\'s x, y and row of outputs',
    "(the `outputs` column, in the user's units), and the finished run's `Result.x_iters`",
    "and `Result.values`, equal the uninterrupted run's bit for bit.",
)


def _alive_at_5(row: dict) -> int:
    """Processes of a killed driver alive 5 s after the kill, from the row's description."""
    return sum(not d.endswith("30 s after the kill") for d in row.get("left_behind", []))


#: the default rows: fast methods of each family sequentially, and in batches on processes
SEQUENTIAL = ("random", "sobol", "cma-es", "gp-ei", "turbo", "rf-ei")
BATCHED = ("random", "gp-ei")
#: the default rows of the other output specifications (``--spec``): every method that
#: handles the specification (``max_objectives``, ``supports_constraints``; random adapts
#: to no value and takes any), in batches where it batches (``supports_batch``)
SPEC_METHODS = {
    "two-objectives": (("random", "gp-ei"), ("random", "gp-ei")),
    "constrained": (("random", "gp-ei", "gp-ei-cobyqa", "turbo", "cobyqa", "cma-es"),
                    ("random", "gp-ei", "turbo", "cma-es")),
}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--work", default="/tmp/isoline-crash", help="stores, logs and rows.jsonl")
    p.add_argument("--out", default=str(HERE.parent / "results" / "reliability"))
    p.add_argument("--kills", type=int, default=10, help="kills per run (fewer if it ends first)")
    p.add_argument("--creation", type=int, default=3,
                   help="of them, kills while the store and study are created")  # fmt: skip
    p.add_argument("--repeats", type=int, default=4, help="runs per method and mode")
    p.add_argument("--spec", nargs="+", default=["objective"],
                   choices=["objective", *SPEC_METHODS],
                   help="output specifications: one objective (a number), two objectives "
                   "({f, g}), one objective and a constraint ({f, c}); see driver.py")  # fmt: skip
    p.add_argument("--methods", nargs="*", default=None,
                   help="run sequentially (default: SEQUENTIAL, or SPEC_METHODS's)")  # fmt: skip
    p.add_argument("--batched", nargs="*", default=None,
                   help="run in batches of 3 on worker processes (default: BATCHED, or "
                   "SPEC_METHODS's)")  # fmt: skip
    p.add_argument("--name", default="README",
                   help="report file names in --out: NAME.md (README.md) and NAME.json "
                   "(crash.json for README)")  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="seed of the kill moments")
    p.add_argument("--report", action="store_true", help="only write the report")
    args = p.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/reliability/crash.py " + " ".join(sys.argv[1:])
    seconds = None
    if not args.report:
        t0 = time.time()
        rows_file = work / "rows.jsonl"
        seen = set()
        if rows_file.exists():
            rows = map(json.loads, rows_file.read_text().splitlines())
            seen = {(r.get("spec", "objective"), r["method"], r["mode"], r["rep"]) for r in rows}
        zygotes = [Zygote(random.Random(f"{args.seed}/{k}").randrange(2**32)) for k in range(3)]
        try:
            for rep in range(args.repeats):
                plan = []
                for spec in args.spec:
                    seq, bat = SPEC_METHODS.get(spec, (SEQUENTIAL, BATCHED))
                    seq = seq if args.methods is None else args.methods
                    bat = bat if args.batched is None else args.batched
                    plan += [(spec, m, "sequential", 1, "none") for m in seq]
                    plan += [(spec, m, "batch-3-processes", 3, "process") for m in bat]
                for spec, method, mode, q, executor in plan:
                    if (spec, method, mode, rep) in seen:
                        continue
                    # (the one-objective rows keep their kill moments of before --spec)
                    tag = "" if spec == "objective" else f"{spec}/"
                    rng = random.Random(f"{args.seed}/{tag}{method}/{mode}/{rep}")
                    row = run_row(method, mode, q, executor, args.kills, args.creation, work,
                                  rng, rep, zygotes, spec)  # fmt: skip
                    print(json.dumps(row), flush=True)
                    with rows_file.open("a") as fh:
                        fh.write(json.dumps(row) + "\n")
        finally:
            for z in zygotes:
                z.close()
        seconds = time.time() - t0
    report(work, Path(args.out), command, seconds, args.name)


if __name__ == "__main__":
    main()
