"""Crash benchmark: SIGKILL the driver of a run at random moments, resume it, and compare
the finished study with an uninterrupted run of the same seed.

For every registered method, sequentially (``executor=None``) and, for batch methods, in
batches of 3 on worker processes (``executor="process"``), a driver process
(``driver.py``) runs a study of 14 evaluations (24 in batches; d = 3, 4 initial points). The harness kills it
``--kills`` times (fewer if the run ends first; ``--repeats`` runs per method and
mode), each time at a random moment: a quarter of the kills land in the first
seconds (start-up, replay of the stored history), the others a random time after the
driver has started a new evaluation (during evaluations, proposals and store writes). After
each kill it counts the driver's processes (its session) still alive 5 s later, then
starts the driver again with another ``PYTHONHASHSEED``, until the study is finished.

Measured per run: kills, evaluations lost (budget minus finished trials), finished
evaluations run again (an evaluation the store had already finished, logged again by the
objective), whether x and y of every trial equal the uninterrupted run's, and processes
left behind. Results append to ``WORK/rows.jsonl`` (a rerun skips rows already there);
``--report`` writes ``README.md`` and ``crash.json`` into ``--out``.

    nice -n 10 .venv/bin/python benchmarks/reliability/crash.py --work /tmp/crash
    .venv/bin/python benchmarks/reliability/crash.py --work /tmp/crash --report
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

import isoline as iso
from isoline.bench.report import git_commit
from isoline.methods.registry import get_method

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


def left_behind(sid: int, wait: float = 5.0) -> int:
    """Live processes of the killed driver's session ``wait`` s later (then killed);
    zombies (exited, waiting to be reaped) are not counted."""
    deadline = time.time() + wait
    while session_members(sid) and time.time() < deadline:
        time.sleep(0.1)
    rest = session_members(sid)
    for pid in rest:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(rest)


def progress(db: Path, study: str) -> tuple[int, list[tuple]]:
    """(a counter that grows with every evaluation started, trial stored or trial
    finished; the finished trials as (number, x, y))."""
    if not db.exists():
        return 0, []
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            rows = conn.execute(
                "SELECT t.number, t.x, t.y, t.status, t.attempts FROM trials t JOIN studies s "
                "ON t.study_id = s.study_id WHERE s.name = ? ORDER BY t.number",
                (study,),
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return 0, []
    finished = [(r[0], json.loads(r[1]), r[2]) for r in rows if r[3] != "pending"]
    return sum(r[4] for r in rows) + len(rows) + len(finished), finished


def start_driver(db: Path, study: str, method: str, q: int, executor: str, log: Path,
                 rng: random.Random) -> subprocess.Popen:  # fmt: skip
    env = dict(os.environ, PYTHONHASHSEED=str(rng.randrange(2**32)))
    cmd = [sys.executable, str(DRIVER), str(db), study, method, str(q), executor, str(log),
           str(BUDGETS[q])]  # fmt: skip
    return subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)  # fmt: skip


def completions(log: Path) -> list[int]:
    return [int(line) for line in log.read_text().split()] if log.exists() else []


def run_row(method: str, mode: str, q: int, executor: str, kills: int, work: Path,
            rng: random.Random, rep: int) -> dict:  # fmt: skip
    key = f"{method}.{mode}.{rep}"
    study = key
    ref_db, db = work / f"{key}.ref.db", work / f"{key}.crash.db"
    for p in (ref_db, db):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{p}{suffix}").unlink(missing_ok=True)
    t0 = time.time()
    ref = start_driver(ref_db, study, method, q, executor, work / f"{key}.ref.log", rng)
    _, err = ref.communicate()
    if ref.returncode != 0:
        return {"method": method, "mode": mode, "rep": rep, "error": err.decode()[-500:]}
    ref_time = time.time() - t0
    _, ref_trials = progress(ref_db, study)
    conn = sqlite3.connect(f"file:{ref_db}?mode=ro", uri=True)
    (first,) = conn.execute("SELECT MIN(started) FROM trials").fetchone()
    conn.close()
    per_batch = (t0 + ref_time - first) / (BUDGETS[q] // q)  # start-up excluded
    done_kills = restarts = repeated = orphans = 0
    error = None
    while True:
        starts_before, finished = progress(db, study)
        finished_before = {n for n, _, _ in finished}
        log = work / f"{key}.{restarts}.log"
        log.unlink(missing_ok=True)
        proc = start_driver(db, study, method, q, executor, log, rng)
        restarts += 1
        if done_kills < kills:
            if rng.random() < 0.25:
                deadline = time.time() + rng.uniform(0.0, 4.0)
            else:
                deadline = None
                while proc.poll() is None and progress(db, study)[0] <= starts_before:
                    time.sleep(0.02)
                deadline = time.time() + rng.uniform(0.0, 2.0 * per_batch)
            while proc.poll() is None and time.time() < deadline:
                time.sleep(0.01)
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                done_kills += 1
                orphans += left_behind(proc.pid)
        _, err = proc.communicate()
        repeated += sum(n in finished_before for n in completions(log))
        if proc.returncode == 0:
            break
        if proc.returncode != -signal.SIGKILL:
            error = err.decode()[-500:]
            break
        if restarts > 10 * kills + 20:
            error = "no progress"
            break
    _, final = progress(db, study)
    same = [(a[1], a[2]) for a in final] == [(b[1], b[2]) for b in ref_trials]
    return {
        "method": method, "mode": mode, "rep": rep, "batch_size": q, "executor": executor,
        "kills": done_kills, "restarts": restarts, "lost": BUDGETS[q] - len(final),
        "repeated_finished": repeated, "identical": same and len(final) == len(ref_trials),
        "orphans": orphans, "ref_seconds": round(ref_time, 2), "error": error,
    }  # fmt: skip


def report(work: Path, out: Path, command: str) -> None:
    rows = [json.loads(line) for line in (work / "rows.jsonl").read_text().splitlines()]
    commit = git_commit(HERE)
    tot = {
        k: sum(r.get(k, 0) or 0 for r in rows)
        for k in ("kills", "lost", "repeated_finished", "orphans")
    }
    tot["identical"] = sum(bool(r.get("identical")) for r in rows)
    tot["rows"] = len(rows)
    out.mkdir(parents=True, exist_ok=True)
    (out / "crash.json").write_text(json.dumps({"commit": commit, "command": command, "totals": tot,
                                                "rows": rows}, indent=1))  # fmt: skip
    lines = [
        "# Crash benchmark: random SIGKILLs of the driver, then resume",
        "",
        f"Made by `{command}` at commit `{commit}` (library code as of that commit).",
        "Each row: one study of 14 evaluations (24 in batches of 3; d = 3, 4 initial points, seed 7, a sphere with its",
        "minimum near a bound, 50 ms per evaluation) killed at random moments and resumed",
        "in a new process (other `PYTHONHASHSEED`) until finished, compared trial by trial",
        "with an uninterrupted run. See `benchmarks/reliability/crash.py` for the protocol.",
        "",
        f"**Totals over {tot['rows']} runs: {tot['kills']} kills, {tot['lost']} evaluations lost, "
        f"{tot['repeated_finished']} finished evaluations run again, {tot['identical']} of "
        f"{tot['rows']} trajectories identical to the uninterrupted run, {tot['orphans']} "
        "processes left 5 s after a kill.**",
        "",
        "| method | mode | run | kills | restarts | lost | finished re-run | identical | left behind | error |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['method']} | {r['mode']} | {r.get('rep', 0)} | {r.get('kills', '-')} | {r.get('restarts', '-')} | "
            f"{r.get('lost', '-')} | {r.get('repeated_finished', '-')} | "
            f"{'yes' if r.get('identical') else 'no'} | {r.get('orphans', '-')} | "
            f"{(r.get('error') or '').splitlines()[-1:] or ''} |"
        )
    (out / "README.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--work", default="/tmp/isoline-crash", help="stores, logs and rows.jsonl")
    p.add_argument("--out", default=str(HERE.parent / "results" / "reliability"))
    p.add_argument("--kills", type=int, default=8, help="kills per run (fewer if it ends first)")
    p.add_argument("--repeats", type=int, default=1, help="runs per method and mode")
    p.add_argument("--methods", nargs="*", help="default: every registered method")
    p.add_argument("--seed", type=int, default=0, help="seed of the kill moments")
    p.add_argument("--report", action="store_true", help="only write the report")
    args = p.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/reliability/crash.py " + " ".join(sys.argv[1:])
    if not args.report:
        rows_file = work / "rows.jsonl"
        seen = set()
        if rows_file.exists():
            rows = map(json.loads, rows_file.read_text().splitlines())
            seen = {(r["method"], r["mode"], r["rep"]) for r in rows}
        for rep in range(args.repeats):
            for method in args.methods or [m.name for m in iso.methods()]:
                modes = [("sequential", 1, "none")]
                if get_method(method).supports_batch:
                    modes.append(("batch-3-processes", 3, "process"))
                for mode, q, executor in modes:
                    if (method, mode, rep) in seen:
                        continue
                    rng = random.Random(f"{args.seed}/{method}/{mode}/{rep}")
                    row = run_row(method, mode, q, executor, args.kills, work, rng, rep)
                    print(json.dumps(row), flush=True)
                    with rows_file.open("a") as fh:
                        fh.write(json.dumps(row) + "\n")
    report(work, Path(args.out), command)


if __name__ == "__main__":
    main()
