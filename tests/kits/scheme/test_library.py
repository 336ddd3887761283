"""The Scheme course's library (tron.scm) on Guile and on Chez Scheme: the document's
example brain in a local game, the brain form's meaning, the board utilities' results.

Each test runs one Scheme process per implementation; an implementation that is not
installed skips with the script that installs it.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from tests.kits.scheme.runner import EXAMPLE, SCHEMES, loads, run_scheme

VECTORS = Path(__file__).with_name("vectors") / "board.txt"

DOCUMENT_EXAMPLE = """\
(define-tron-brain (random-move-bot
                    ("Random Move Bot" size orig-walls play ppos opos)
                    (walls orig-walls))
  (let ([new-walls (cons* ppos opos walls)])
    (define (safe? m)
      (and (not (member (get-pos m ppos size) new-walls)) #t))
    (let ([safe-moves (filter safe? valid-moves)])
      (play
        (if (null? safe-moves)
            (list-ref valid-moves (random (length valid-moves)))
            (list-ref safe-moves (random (length safe-moves))))
        new-walls)))
"""
"""Section 3 of the course's document, as it writes the example brain."""

FREE, WALL, P1, P2, DEAD = "\u25e6", "\u22a0", "\u2660", "\u2663", "\u2716"
RESULT = re.compile(r"^(Random Move Bot \(Player [12]\) has won!|The game was a draw\.)$")


def _vectors() -> list[tuple[str, str]]:
    out = []
    for line in VECTORS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            expr, _, expected = line.partition(" => ")
            out.append((expr.strip(), expected.strip()))
    return out


def test_the_kit_ships_the_documents_example_brain_as_written() -> None:
    """Word for word, but for the closing parenthesis the document's listing lacks."""
    closed = DOCUMENT_EXAMPLE.replace("new-walls)))\n", "new-walls))))\n")
    assert closed != DOCUMENT_EXAMPLE and closed in EXAMPLE.read_text(encoding="utf-8")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_board_utilities_give_the_documents_results(scheme: str, tmp_path: Path) -> None:
    vectors = _vectors()
    code = loads() + "".join(f"(write {expr}) (newline)\n" for expr, _ in vectors)
    done = run_scheme(scheme, code, tmp_path)
    assert done.returncode == 0, done.stderr
    got = done.stdout.splitlines()
    assert len(got) == len(vectors), done.stdout
    wrong = [f"{e} => {g} (expected {x})" for (e, x), g in zip(vectors, got, strict=True) if g != x]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_print_board_draws_the_documents_symbols(scheme: str, tmp_path: Path) -> None:
    code = loads() + "(print-board '(4 . 3) '((0 . 0) (1 . 1)) '(1 . 1) '(2 . 2))\n"
    done = run_scheme(scheme, code, tmp_path, env={"LANG": "C"})
    assert done.returncode == 0, done.stderr
    rows = [f"{WALL} {FREE} {FREE} {FREE} ", f"{FREE} {DEAD} {FREE} {FREE} "]
    rows.append(f"{FREE} {FREE} {P2} {FREE} ")
    assert done.stdout == "\n".join(rows) + "\n\n"


@pytest.mark.parametrize("scheme", SCHEMES)
def test_play_tron_plays_the_example_brain_as_the_document_shows(
    scheme: str, tmp_path: Path
) -> None:
    """Section 7's call, without the quarter second between turns."""
    code = loads(EXAMPLE) + (
        "(parameterize ((play-tron-delay 0))\n"
        "  (play-tron '(37 . 10) (make-outer-walls '(37 . 10)) '(1 . 1) '(35 . 8)\n"
        "             random-move-bot random-move-bot))\n"
    )
    done = run_scheme(scheme, code, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["Name1: Random Move Bot", "Name2: Random Move Bot"]
    assert RESULT.match(lines[-1]), lines[-1]
    boards = "\n".join(lines[2:-1]).split("\n\n")
    boards = [b for b in boards if b.strip()]
    assert len(boards) >= 2
    first = [row.split() for row in boards[0].splitlines()]
    assert len(first) == 10 and all(len(r) == 37 for r in first)
    assert first[1][1] == P1 and first[8][35] == P2
    assert all(c == WALL for c in first[0] + first[9] + [r[0] for r in first])
    last = boards[-1]
    dead = last.count(DEAD)
    assert dead == (1 if "has won" in lines[-1] else dead) and dead >= 1
    if "Player 1" in lines[-1]:
        assert P1 in last and P2 not in last
    if "Player 2" in lines[-1]:
        assert P2 in last and P1 not in last
    # every turn both cycles leave a trail: two cells more taken than the board before
    # (the last board's crash lands on a taken cell)
    taken = [b.count(WALL) + b.count(DEAD) + b.count(P1) + b.count(P2) for b in boards[:-1]]
    assert taken[0] == 2 * 37 + 2 * 8 + 2
    assert all(b - a == 2 for a, b in itertools.pairwise(taken)), taken


@pytest.mark.parametrize("scheme", SCHEMES)
def test_play_tron_checks_its_arguments_with_the_documents_messages(
    scheme: str, tmp_path: Path
) -> None:
    calls = {
        "invalid board size": "'(0 . 5) '() '(1 . 1) '(2 . 2) b b",
        "invalid walls list": "'(5 . 5) '((9 . 9)) '(1 . 1) '(2 . 2) b b",
        "invalid cycle position": "'(5 . 5) '() '(1 . 1) '(5 . 2) b b",
        "invalid brain": "'(5 . 5) '() '(1 . 1) '(2 . 2) b 'b",
    }
    code = (
        loads(EXAMPLE)
        + "(define b random-move-bot)\n"
        + _try()
        + "".join(f"(try (lambda () (play-tron {args})))\n" for args in calls.values())
    )
    done = run_scheme(scheme, code, tmp_path)
    assert done.returncode == 0, done.stderr
    got = done.stdout.splitlines()
    assert len(got) == len(calls), done.stdout
    for message, line in zip(calls, got, strict=True):
        assert line.startswith("error:") and message in line and "play-tron" in line, line


def _try() -> str:
    """A `try` that prints ``error: WHO MESSAGE`` for an error, on either Scheme."""
    return """
(define (try thunk)
  (cond-expand
   (guile (catch #t thunk
            (lambda (key . args) (display "error: ") (write args) (newline))))
   (chezscheme
    (guard (e (#t (display "error: ")
                  (display (and (who-condition? e) (condition-who e))) (display " ")
                  (display (condition-message e)) (newline)))
      (thunk)))))
"""


BRAINS = """
(define seen '())
(define names 0)
(define-tron-brain (counter ((begin (set! names (+ names 1)) "Counter")
                             size walls play ppos opos)
                            (n (length walls)))
  (define next (+ n 1))
  (set! seen (cons (list n size ppos opos) seen))
  (play 'e next))
(define-tron-brain (twice ("Twice" size walls play ppos opos) (s #f))
  (play 'n) (play 's))
(define-tron-brain (silent ("Silent" size walls play ppos opos) (s #f))
  s)
(define-tron-brain (wrong ("Wrong" size walls play ppos opos) (s #f))
  (play 'up))
(define (start brain out) (brain out (make-info-port '(5 . 5) '((0 . 0) (1 . 0)))))
"""


@pytest.mark.parametrize("scheme", SCHEMES)
def test_define_tron_brain_binds_the_documents_identifiers(scheme: str, tmp_path: Path) -> None:
    """The name is evaluated once; the state's init sees the walls; the body may start
    with definitions and its value is the next state; play sends one valid move a turn."""
    code = (
        loads()
        + BRAINS
        + _try()
        + """
(define out (open-output-string))
(define mover (start counter out))
(mover (make-pos-port '(1 . 1) '(3 . 3)))
(mover (make-pos-port '(2 . 1) '(3 . 2)))
(write (list (mover) names (reverse seen))) (newline)
(write (get-output-string out)) (newline)
(for-each (lambda (b)
            (let ((m (start b (open-output-string))))
              (try (lambda () (m (make-pos-port '(1 . 1) '(3 . 3)))))))
          (list twice silent wrong))
(write (map car tron:brains)) (newline)
"""
    )
    done = run_scheme(scheme, code, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == '("Counter" 1 ((2 (5 . 5) (1 . 1) (3 . 3)) (3 (5 . 5) (2 . 1) (3 . 2))))'
    assert lines[1] == '"Counter\\ne\\ne\\n"'
    assert "plays one move a turn" in lines[2]
    assert "did not play a move" in lines[3]
    assert "invalid move" in lines[4]
    assert lines[5] == "(wrong silent twice counter)"
