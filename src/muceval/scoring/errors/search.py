"""The first-best search of Das et al.'s error analysis, in bounded time: the candidate the
original's enumeration keeps, by a dynamic programme (docs/error-analysis.md, "The search").

A candidate's score is summed in list order as doubles, whose last bits decide ties.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["Assignment", "Choices", "Option", "evaluate", "f1_of", "first_best", "planned"]

# Running sums further apart than this fraction of the largest possible sum cannot tie.
DELTA = 2.0 ** -30


@dataclass(frozen=True)
class Option:
    """An item may be paired with ``target``, adding ``value`` to the score and ``gain`` units."""

    target: int
    value: float
    gain: int


@dataclass(frozen=True)
class Choices:
    """One search: per item its unpaired value and its options (in target order), per target
    its leftover value; ``p_den`` and ``r_den`` give F1 (used by the original's search)."""

    skip: tuple[float, ...]
    leftover: tuple[float, ...]
    options: tuple[tuple[Option, ...], ...]
    p_den: int = 0
    r_den: int = 0


@dataclass(frozen=True)
class Assignment:
    """The candidate found: per item its target or None (unpaired), its gain and score."""

    choices: tuple[int | None, ...]
    gain: int
    score: float


def f1_of(num: int, p_den: int, r_den: int) -> float:
    """F1 as the original computes it: ``((2·p)·r)/(p + r)``, 0 where undefined.

    >>> f1_of(3, 4, 6)
    0.6
    """
    p = num / p_den if p_den else 0.0
    r = num / r_den if r_den else 0.0
    return ((2 * p) * r) / (p + r) if p + r else 0.0


def evaluate(problem: Choices, choices: tuple[int | None, ...]) -> tuple[int, float]:
    """The gain and the score (summed in list order) of one candidate."""
    score = 0.0
    gain = 0
    for i, target in enumerate(choices):
        if target is None:
            score += problem.skip[i]
            continue
        option = next(o for o in problem.options[i] if o.target == target)
        score += option.value
        gain += option.gain
    used = {t for t in choices if t is not None}
    for j, value in enumerate(problem.leftover):
        if j not in used:
            score += value
    return gain, score


def _candidates(problem: Choices, i: int, used: set[int]) -> Iterator[tuple[int | None, ...]]:
    if i == len(problem.skip):
        yield ()
        return
    for rest in _candidates(problem, i + 1, used):
        yield (None, *rest)
    for option in problem.options[i]:
        if option.target not in used:
            used.add(option.target)
            for rest in _candidates(problem, i + 1, used):
                yield (option.target, *rest)
            used.discard(option.target)


# Up to this many candidates, enumerating is quicker than planning; most roles and documents
# have a handful.
FEW = 64


def _few(problem: Choices) -> bool:
    if len(problem.skip) > 100:
        return False  # the enumeration recurses once per item
    bound = 1
    for options in problem.options:
        bound *= 1 + len(options)
        if bound > FEW:
            return False
    return True


def _enumerated(problem: Choices) -> Assignment:
    """The enumeration, comparing gains instead of F1 (the same order: fixed denominators)."""
    best: Assignment | None = None
    for choices in _candidates(problem, 0, set()):
        gain, score = evaluate(problem, choices)
        if best is None or gain > best.gain or (gain == best.gain and score < best.score):
            best = Assignment(choices, gain, score)
    assert best is not None
    return best


# Per relevant class the members used, the members used of the other classes (their number,
# when leftover values are uniform), and the running sum.
State = tuple[tuple[int, ...], int, float]


@dataclass
class _Plan:
    members: list[list[int]]
    column: list[list[Option | None]]  # per class, per item (None: not admissible)
    relevant: list[tuple[int, ...]]  # per layer: the classes some later item can take
    uniform: bool
    delta: float
    steps: list[dict[State, list[tuple[int | None, int, State]]]] = field(default_factory=list)


def _plan(problem: Choices) -> _Plan:
    k, n = len(problem.skip), len(problem.leftover)
    grid: list[list[Option | None]] = [[None] * k for _ in range(n)]
    for i, options in enumerate(problem.options):
        for option in options:
            grid[option.target][i] = option
    uniform = len(set(problem.leftover)) <= 1
    groups: dict[object, list[int]] = {}
    for j in range(n):
        # A target's column: what each item gains and adds with it (the target itself aside).
        signature = tuple(None if o is None else (o.value, o.gain) for o in grid[j])
        groups.setdefault((signature, problem.leftover[j]), []).append(j)
    members = []
    for group in groups.values():
        # Swapping two members leaves the leftover values in the same order only if every
        # target between them has the same leftover value: a class stops where one has not.
        run = [group[0]]
        for x, y in zip(group, group[1:], strict=False):
            if not all(problem.leftover[t] == problem.leftover[x] for t in range(x + 1, y)):
                members.append(run)
                run = []
            run.append(y)
        members.append(run)
    members.sort()
    column = [grid[m[0]] for m in members]
    relevant = []
    for i in range(k + 1):
        relevant.append(tuple(c for c in range(len(members))
                              if not uniform or any(o is not None for o in column[c][i:])))
    largest = sum(max([problem.skip[i], *(o.value for o in problem.options[i])])
                  for i in range(k)) + sum(problem.leftover)
    return _Plan(members, column, relevant, uniform, DELTA * max(1.0, largest))


def _moves(problem: Choices, plan: _Plan, i: int,
           state: State) -> list[tuple[int | None, int, State]]:
    """The options ``(target or None, gain, next state)`` of item ``i``, in the original's order."""
    counts, extra, running = state
    here = dict(zip(plan.relevant[i], counts, strict=True))
    moves: list[tuple[int | None, int, State]] = [
        (None, 0, _project(plan, i, here, extra, running + problem.skip[i]))]
    for c, used in here.items():
        option = plan.column[c][i]
        if option is not None and used < len(plan.members[c]):
            target = plan.members[c][used]
            after = {**here, c: used + 1}
            moves.append((target, option.gain,
                          _project(plan, i, after, extra, running + option.value)))
    moves[1:] = sorted(moves[1:], key=lambda move: -1 if move[0] is None else move[0])
    return moves


def _project(plan: _Plan, i: int, counts: dict[int, int], extra: int, running: float) -> State:
    """The state after item ``i``: classes no later item can take count only in number."""
    later = plan.relevant[i + 1]
    dropped = sum(used for c, used in counts.items() if c not in later)
    return tuple(counts[c] for c in later), extra + dropped, running


def _prune(plan: _Plan, layer: dict[State, int]) -> dict[State, int]:
    """The states no other state of the same targets used beats whatever follows."""
    groups: dict[tuple[tuple[int, ...], int], list[tuple[State, int]]] = {}
    for state, gain in layer.items():
        groups.setdefault((state[0], state[1]), []).append((state, gain))
    kept: dict[State, int] = {}
    for group in groups.values():
        top = max(gain for _, gain in group)
        lowest = min(state[2] for state, gain in group if gain == top)
        for state, gain in group:
            if gain == top and state[2] <= lowest + plan.delta:
                kept[state] = gain
    return kept


def _finish(problem: Choices, plan: _Plan, state: State) -> float:
    """The running sum with the leftover targets added, in target order."""
    counts, extra, running = state
    if plan.uniform:
        value = problem.leftover[0] if problem.leftover else 0.0
        for _ in range(len(problem.leftover) - extra - sum(counts)):
            running += value
        return running
    unused = sorted(j for c, used in zip(plan.relevant[-1], counts, strict=True)
                    for j in plan.members[c][used:])
    for j in unused:
        running += problem.leftover[j]
    return running


def first_best(problem: Choices) -> Assignment:
    """The candidate the original's search keeps (every candidate, depth-first, the first
    with the greatest F1 and then the smallest score), found without enumerating.

    Eight fillers against eight identical entities, where the original enumerates 1,441,729
    candidates:

    >>> same = tuple(Option(j, 0.0, 1) for j in range(8))
    >>> first_best(Choices((1.0,) * 8, (1.0,) * 8, (same,) * 8)).choices
    (0, 1, 2, 3, 4, 5, 6, 7)
    """
    return _enumerated(problem) if _few(problem) else planned(problem)


def planned(problem: Choices) -> Assignment:
    """:func:`first_best` by the dynamic programme alone, whatever the size (for tests)."""
    plan = _plan(problem)
    layer: dict[State, int] = {((0,) * len(plan.relevant[0]), 0, 0.0): 0}
    for i in range(len(problem.skip)):
        step: dict[State, list[tuple[int | None, int, State]]] = {}
        following: dict[State, int] = {}
        for state, gain in layer.items():
            step[state] = _moves(problem, plan, i, state)
            for _, extra_gain, child in step[state]:
                following[child] = max(following.get(child, -1), gain + extra_gain)
        plan.steps.append(step)
        layer = _prune(plan, following)
    return _backward(problem, plan, layer)


def _backward(problem: Choices, plan: _Plan, last: dict[State, int]) -> Assignment:
    """Per state, from the last item back, the first best completion; then the root's."""
    Best = tuple[int, float, int | None, State | None]
    best: dict[State, Best] = {state: (0, _finish(problem, plan, state), None, None)
                               for state in last}
    tables = [best]
    for step in reversed(plan.steps):
        above: dict[State, Best] = {}
        for state, moves in step.items():
            chosen: Best | None = None
            for target, gain, child in moves:
                if child not in best:
                    continue  # pruned: beaten whatever follows
                total, score = gain + best[child][0], best[child][1]
                if chosen is None or total > chosen[0] or (total == chosen[0]
                                                           and score < chosen[1]):
                    chosen = (total, score, target, child)
            if chosen is not None:
                above[state] = chosen
        best = above
        tables.append(best)
    ((root, (gain, score, _, _)),) = best.items()
    choices: list[int | None] = []
    at: State | None = root
    for table in reversed(tables[1:]):
        assert at is not None
        _, _, target, at = table[at]
        choices.append(target)
    return Assignment(tuple(choices), gain, score)
