"""A JsonLogic evaluator with json-logic-js semantics, plus the plugin's ``glob``/``regexp``.

The plugin evaluates queries with json-logic-js, so the JavaScript rules apply: loose
``==``, ``+`` through ``parseFloat``, string concatenation through ``String()``, and the
library's truthiness (only ``[]`` is falsy among containers). The plugin's final filter
(:func:`is_sane_truthy`) is stricter: ``{}`` is falsy there too.

Supported: var, missing, missing_some, if/?:, ==, ===, !=, !==, !, !!, or, and, <, <=, >,
>=, in, cat, substr, +, -, *, /, %, min, max, merge, map, filter, reduce, all, none, some,
log, glob, regexp. Anything else raises JsonLogicError("Unrecognized operation ...").

``regexp`` and ``glob`` match with the ``regex`` package, not ``re``: it can stop a match
after a time and lets go of the GIL while it matches, so a pattern that takes exponential time
((a|aa)+$) cannot freeze the server that evaluates it (the folder backend, vaultgate's own
evaluation over scrubbed notes, the emulator). The queries evaluated inside
:func:`regex_budget` share REGEX_SECONDS of matching; past it, JsonLogicError says so.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import regex

Data = Any
_NUMBER = re.compile(r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_STRICT_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|Infinity)")
_MAX_DEPTH = 200
REGEX_SECONDS = 10.0  # of matching, for all the notes one search evaluates


@dataclass(slots=True)
class _Budget:
    seconds: float  # of matching, for the whole search
    left: float  # of those, still to spend


_regex_budget: ContextVar[_Budget | None] = ContextVar("regex_budget", default=None)


@contextmanager
def regex_budget(seconds: float | None = None) -> Iterator[None]:
    """The ``regexp`` and ``glob`` matches of every query evaluated inside share ``seconds``
    of matching (REGEX_SECONDS unless said; one search evaluates its query once per note).
    Only the matches count: reading the notes between them does not."""
    total = REGEX_SECONDS if seconds is None else seconds
    token = _regex_budget.set(_Budget(total, total))
    try:
        yield
    finally:
        _regex_budget.reset(token)


class JsonLogicError(Exception):
    """The query cannot be evaluated (unknown operation, bad regular expression, ...)."""


# --- JavaScript conversions -----------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def truthy(value: Any) -> bool:
    """json-logic-js truthiness: JavaScript's, except that an empty array is falsy."""
    if value is None or value is False:
        return False
    if isinstance(value, list):
        return len(value) > 0
    if _is_number(value):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def is_sane_truthy(value: Any) -> bool:
    """The plugin's filter: false, null, 0, NaN, "", [] and {} are all falsy."""
    if isinstance(value, (list, dict)):
        return len(value) > 0
    return truthy(value)


def to_number(value: Any) -> float:
    if value is None or value is False:
        return 0.0
    if value is True:
        return 1.0
    if _is_number(value):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return 0.0
        if text.lower().startswith(("0x", "0o", "0b")):
            try:
                return float(int(text, 0))
            except ValueError:
                return math.nan
        if _STRICT_NUMBER.fullmatch(text):
            return float(text.replace("Infinity", "inf"))
        return math.nan
    if isinstance(value, list):
        return to_number(to_string(value))
    return math.nan


def _number_to_string(number: float | int) -> str:
    if isinstance(number, int):
        return str(number)
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number.is_integer() and abs(number) < 1e21:
        return str(int(number))
    text = repr(number)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}e{sign}{int(exponent.lstrip('+-'))}"
    return text


def to_string(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if _is_number(value):
        return _number_to_string(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if item is None else to_string(item) for item in value)
    return "[object Object]"


def parse_float(value: Any) -> float:
    match = _NUMBER.match(to_string(value).lstrip())
    if match is None:
        return math.nan
    return float(match.group(0).replace("Infinity", "inf"))


def _to_primitive(value: Any) -> Any:
    return to_string(value) if isinstance(value, (list, dict)) else value


def loose_equals(a: Any, b: Any) -> bool:
    """JavaScript ``==`` for JSON values."""
    if isinstance(a, (list, dict)) and isinstance(b, (list, dict)):
        return a is b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool):
        return loose_equals(1 if a else 0, b)
    if isinstance(b, bool):
        return loose_equals(a, 1 if b else 0)
    if isinstance(a, (list, dict)):
        return loose_equals(_to_primitive(a), b)
    if isinstance(b, (list, dict)):
        return loose_equals(a, _to_primitive(b))
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return to_number(a) == to_number(b)


def strict_equals(a: Any, b: Any) -> bool:
    """JavaScript ``===`` for JSON values."""
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if _is_number(a) and _is_number(b):
        return float(a) == float(b)
    return type(a) is type(b) and a == b


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def _less(a: Any, b: Any) -> bool:
    """JavaScript ``a < b``: strings by code units, anything else as numbers."""
    a, b = _to_primitive(a), _to_primitive(b)
    if isinstance(a, str) and isinstance(b, str):
        return _utf16(a) < _utf16(b)
    x, y = to_number(a), to_number(b)
    return not (math.isnan(x) or math.isnan(y)) and x < y


def _less_equal(a: Any, b: Any) -> bool:
    a, b = _to_primitive(a), _to_primitive(b)
    if isinstance(a, str) and isinstance(b, str):
        return _utf16(a) <= _utf16(b)
    x, y = to_number(a), to_number(b)
    return not (math.isnan(x) or math.isnan(y)) and x <= y


def _number_result(value: float) -> float | int:
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


# --- operations -----------------------------------------------------------------------------


def _var(data: Data, key: Any = None, default: Any = None) -> Any:
    if key is None or key == "":
        return data
    current = data
    for part in to_string(key).split("."):
        if current is None:
            return default
        if isinstance(current, dict):
            if part not in current:
                return default
            current = current[part]
        elif isinstance(current, (list, str)):
            if part == "length":
                current = len(current)
            elif part.isdigit() and int(part) < len(current):
                current = current[int(part)]
            else:
                return default
        else:
            return default
    return current


def _missing(data: Data, *args: Any) -> list[Any]:
    keys: Sequence[Any] = args[0] if args and isinstance(args[0], list) else args
    missing: list[Any] = []
    for key in keys:
        value = _var(data, key)
        if value is None or value == "":
            missing.append(key)
    return missing


def _missing_some(data: Data, need: Any = 0, options: Any = None) -> list[Any]:
    keys = options if isinstance(options, list) else []
    missing = _missing(data, keys)
    return [] if len(keys) - len(missing) >= to_number(need) else missing


def _in(a: Any, b: Any) -> bool:
    if isinstance(b, str):
        return to_string(a) in b
    if isinstance(b, list):
        return any(strict_equals(a, item) for item in b)
    return False


def _substr(source: Any = None, start: Any = 0, length: Any = None) -> str:
    text = to_string(source)
    begin = int(to_number(start)) if not math.isnan(to_number(start)) else 0
    if begin < 0:
        begin = max(len(text) + begin, 0)
    rest = text[begin:]
    if length is None:
        return rest
    count = int(to_number(length)) if not math.isnan(to_number(length)) else 0
    return rest[: len(rest) + count] if count < 0 else rest[:count]


def _add(*args: Any) -> float | int:
    return _number_result(sum((parse_float(a) for a in args), 0.0))


def _multiply(*args: Any) -> Any:
    if not args:
        raise JsonLogicError("Reduce of empty array with no initial value")
    if len(args) == 1:
        return args[0]
    product = 1.0
    for arg in args:
        product *= parse_float(arg)
    return _number_result(product)


def _subtract(a: Any = None, b: Any = None) -> float | int:
    if b is None:
        return _number_result(-to_number(a))
    return _number_result(to_number(a) - to_number(b))


def _divide(a: Any = None, b: Any = None) -> float | int:
    x, y = to_number(a), to_number(b)
    if y == 0:
        if x == 0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return _number_result(x / y)


def _modulo(a: Any = None, b: Any = None) -> float | int:
    x, y = to_number(a), to_number(b)
    if y == 0 or math.isinf(x) or math.isnan(x) or math.isnan(y):
        return math.nan
    return _number_result(math.fmod(x, y))


def _extreme(pick: Callable[[list[float]], float], args: Sequence[Any], empty: float) -> Any:
    numbers = [to_number(a) for a in args]
    if not numbers:
        return empty
    if any(math.isnan(n) for n in numbers):
        return math.nan
    return _number_result(pick(numbers))


def _merge(*args: Any) -> list[Any]:
    merged: list[Any] = []
    for arg in args:
        if isinstance(arg, list):
            merged.extend(arg)
        else:
            merged.append(arg)
    return merged


def _glob_regex(pattern: str) -> regex.Pattern[str]:
    # glob-to-regexp with default options: '*' is '.*'; everything else is literal
    return regex.compile("".join(".*" if c == "*" else regex.escape(c) for c in pattern))


def _glob(pattern: Any = None, value: Any = None) -> bool:
    if not isinstance(pattern, str) or not isinstance(value, str):
        return False
    return _matched(pattern, lambda timeout: _glob_regex(pattern).fullmatch(value, timeout=timeout))


def _regexp(pattern: Any = None, value: Any = None) -> bool:
    if not isinstance(pattern, str) or not isinstance(value, str):
        return False
    try:
        compiled = regex.compile(pattern)
    except regex.error as exc:
        raise JsonLogicError(f"Invalid regular expression: /{pattern}/: {exc}") from None
    return _matched(pattern, lambda timeout: compiled.search(value, timeout=timeout))


def _matched(pattern: str, match: Callable[[float], regex.Match[str] | None]) -> bool:
    """``match(timeout)`` with what is left of the search's budget, which it then spends."""
    budget = _regex_budget.get()
    allowed = REGEX_SECONDS if budget is None else budget.seconds
    timeout = REGEX_SECONDS if budget is None else max(budget.left, 0.001)
    started = time.monotonic()
    try:
        return match(timeout) is not None
    except TimeoutError:
        raise JsonLogicError(
            f"The pattern /{pattern}/ took more than {allowed:g} s of matching in this "
            "search, so it was stopped: nested repetition such as (a+)+ or (a|aa)+ can take "
            "exponential time. Simplify it, or narrow the search first."
        ) from None
    finally:
        if budget is not None:
            budget.left -= time.monotonic() - started


def _compare(check: Callable[[Any, Any], bool]) -> Callable[..., bool]:
    def between(a: Any = None, b: Any = None, c: Any = None, *_: Any) -> bool:
        if c is None:
            return check(a, b)
        return check(a, b) and check(b, c)

    return between


_EAGER: dict[str, Callable[..., Any]] = {
    "==": lambda a=None, b=None, *_: loose_equals(a, b),
    "===": lambda a=None, b=None, *_: strict_equals(a, b),
    "!=": lambda a=None, b=None, *_: not loose_equals(a, b),
    "!==": lambda a=None, b=None, *_: not strict_equals(a, b),
    ">": lambda a=None, b=None, *_: _less(b, a),
    ">=": lambda a=None, b=None, *_: _less_equal(b, a),
    "<": _compare(_less),
    "<=": _compare(_less_equal),
    "!!": lambda a=None, *_: truthy(a),
    "!": lambda a=None, *_: not truthy(a),
    "%": _modulo,
    "log": lambda a=None, *_: a,
    "in": lambda a=None, b=None, *_: _in(a, b),
    "cat": lambda *args: "".join(to_string(a) for a in args),
    "substr": _substr,
    "+": _add,
    "*": _multiply,
    "-": _subtract,
    "/": _divide,
    "min": lambda *args: _extreme(min, args, math.inf),
    "max": lambda *args: _extreme(max, args, -math.inf),
    "merge": _merge,
    "glob": _glob,
    "regexp": _regexp,
}


def is_logic(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1


def apply(logic: Any, data: Data = None) -> Any:
    """Evaluate ``logic`` against ``data``; JsonLogicError when it cannot be evaluated."""
    try:
        return _apply(logic, data, 0)
    except RecursionError:
        raise JsonLogicError("Maximum call stack size exceeded") from None


def _apply(logic: Any, data: Data, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise JsonLogicError("Maximum call stack size exceeded")
    if isinstance(logic, list):
        return [_apply(item, data, depth + 1) for item in logic]
    if not is_logic(logic):
        return logic
    op, values = next(iter(logic.items()))
    args: list[Any] = values if isinstance(values, list) else [values]
    lazy = _LAZY.get(op)
    if lazy is not None:
        return lazy(args, data, depth + 1)
    evaluated = [_apply(arg, data, depth + 1) for arg in args]
    if op == "var":
        return _var(data, *evaluated[:2])
    if op == "missing":
        return _missing(data, *evaluated)
    if op == "missing_some":
        return _missing_some(data, *evaluated[:2])
    operation = _EAGER.get(op)
    if operation is None:
        raise JsonLogicError(f"Unrecognized operation {op}")
    return operation(*evaluated)


def _if(args: list[Any], data: Data, depth: int) -> Any:
    i = 0
    while i < len(args) - 1:
        if truthy(_apply(args[i], data, depth)):
            return _apply(args[i + 1], data, depth)
        i += 2
    if len(args) == i + 1:
        return _apply(args[i], data, depth)
    return None


def _and(args: list[Any], data: Data, depth: int) -> Any:
    current: Any = None
    for arg in args:
        current = _apply(arg, data, depth)
        if not truthy(current):
            return current
    return current


def _or(args: list[Any], data: Data, depth: int) -> Any:
    current: Any = None
    for arg in args:
        current = _apply(arg, data, depth)
        if truthy(current):
            return current
    return current


def _scoped(args: list[Any], data: Data, depth: int) -> tuple[Any, Any]:
    scoped = _apply(args[0], data, depth) if args else None
    return scoped, args[1] if len(args) > 1 else None


def _filter(args: list[Any], data: Data, depth: int) -> list[Any]:
    items, logic = _scoped(args, data, depth)
    if not isinstance(items, list):
        return []
    return [item for item in items if truthy(_apply(logic, item, depth))]


def _map(args: list[Any], data: Data, depth: int) -> list[Any]:
    items, logic = _scoped(args, data, depth)
    if not isinstance(items, list):
        return []
    return [_apply(logic, item, depth) for item in items]


def _reduce(args: list[Any], data: Data, depth: int) -> Any:
    items, logic = _scoped(args, data, depth)
    accumulator = _apply(args[2], data, depth) if len(args) > 2 else None
    if not isinstance(items, list):
        return accumulator
    for item in items:
        accumulator = _apply(logic, {"current": item, "accumulator": accumulator}, depth)
    return accumulator


def _all(args: list[Any], data: Data, depth: int) -> bool:
    items, logic = _scoped(args, data, depth)
    if not isinstance(items, (list, str)) or len(items) == 0:
        return False
    return all(truthy(_apply(logic, item, depth)) for item in items)


def _none(args: list[Any], data: Data, depth: int) -> bool:
    return len(_filter(args, data, depth)) == 0


def _some(args: list[Any], data: Data, depth: int) -> bool:
    return len(_filter(args, data, depth)) > 0


_LAZY: dict[str, Callable[[list[Any], Data, int], Any]] = {
    "if": _if,
    "?:": _if,
    "and": _and,
    "or": _or,
    "filter": _filter,
    "map": _map,
    "reduce": _reduce,
    "all": _all,
    "none": _none,
    "some": _some,
}
