"""The random draw's extra mutant rules (tools/mutate/random_mutants.py), in catalogue.py's style.

Each rule takes a line's code part (catalogue.code_part: comments and literals blanked, same
length) and the line itself, and yields (start, end, replacement) edits of the line: it finds
sites in the code part and copies text from the line, so a string literal stays intact. They are lexical and
conservative: a site is taken only when the edit is whole on this line (balanced brackets, a
statement that ends here), so most mutants compile, and one that does not costs one failed
build, reported apart and left out of the score.
"""

import re

EXTRA_KINDS = ("delete_stmt", "const_pm1", "swap_branch", "lane_stride", "minmax_swap",
               "logic_swap")


def _balanced(text):
    depth = 0
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


_LVALUE = r"\*?\w+(?:(?:\.|->)\w+|\[[^\]]*\])*"
_ASSIGN = re.compile(r"^(\s*)(" + _LVALUE + r")\s*(=|\+=|-=|\*=|/=|%=|<<=|>>=|\|=|&=|\^=)(?!=)\s*(.+);\s*$")
_INCR = re.compile(r"^(\s*)(?:(?:\+\+|--)" + _LVALUE + r"|" + _LVALUE + r"(?:\+\+|--))\s*;\s*$")
_CALL = re.compile(r"^(\s*)(?:[\w:]+(?:\.|->))*[A-Za-z_][\w:]*\s*\((.*)\)\s*;\s*$")
_NOT_CALLS = ("return", "throw", "if", "while", "for", "switch", "sizeof", "static_assert",
              "delete", "case", "goto")


def rule_delete_stmt(code, line=None):
    """Statement deletion: a whole simple statement on one line (an assignment to an existing
    lvalue, a compound assignment, ++/--, or a call whose value is dropped) becomes `{}`.
    Declarations, returns and control statements are not sites."""
    for pattern in (_ASSIGN, _INCR, _CALL):
        m = pattern.match(code)
        if not m:
            continue
        body = code[len(m.group(1)):code.rstrip().rfind(";")]
        if ";" in body or not _balanced(body) or body.split("(")[0].strip() in _NOT_CALLS:
            return
        if pattern is _CALL and "=" in body.split("(")[0]:
            return
        yield len(m.group(1)), len(code.rstrip()), "{}"
        return


_INT = re.compile(r"(?<![\w.'])(\d+)([uUlL]*)(?![\w.'])")


def rule_const_pm1(code, line=None):
    """Constant +-1: a decimal integer literal one more, and one less when it is above 0
    (hex, floats and digit separators are left alone)."""
    if re.match(r"\s*(template|#)", code):
        return
    for m in _INT.finditer(code):
        if code[:m.start()].rstrip().endswith("0x"):
            continue
        v = int(m.group(1))
        yield m.start(1), m.end(1), str(v + 1)
        if v > 0:
            yield m.start(1), m.end(1), str(v - 1)


def depth0_stop(code, start, stops):
    """(i, c): the first character from `start` that is in `stops` outside brackets, or the
    bracket that closes one opened before `start`; (None, None) at the end of the line. Shared
    with catalogue.py's argument spans."""
    depth = 0
    for i in range(start, len(code)):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return i, c
        elif c in stops and depth == 0:
            return i, c
    return None, None


def _ternary_arms(code, q):
    """(b_start, b_end, c_start, c_end) of the `cond ? b : c` whose '?' is at q, or None."""
    colon = q
    while True:
        colon, c = depth0_stop(code, colon + 1, "?:")
        if c is None or c != ":":
            return None  # no ':', or a nested conditional: the outer arms are ambiguous
        if code[colon - 1] != ":" and code[colon + 1:colon + 2] != ":":
            break  # not a '::'
    end, c = depth0_stop(code, colon + 1, "?;,")
    if c == "?":
        return None
    if end is None:
        if not code.rstrip().endswith((";", ")")):
            return None  # the last arm goes on over the next line
        end = len(code)
    return q + 1, colon, colon + 1, end


_IF = re.compile(r"^\s*(?:\}\s*else\s+)?if\s*\(")


def rule_swap_branch(code, line=None):
    """The other branch: `a ? b : c` becomes `a ? c : b`, and an if condition on one line is
    negated, so that the else (or the fall-through) runs instead."""
    line = code if line is None else line
    for q, c in enumerate(code):
        if c != "?" or code.count("?") > 1:
            continue  # two conditionals on a line: nested or not, the arms are unclear
        arms = _ternary_arms(code, q)
        if not arms:
            continue
        bs, be, cs, ce = arms
        b, c2 = line[bs:be].strip(), line[cs:ce].strip()
        if b and c2 and b != c2:
            yield bs, ce, f" {c2} : {b}" + (" " if code[ce - 1:ce] == " " else "")
    m = _IF.match(code)
    if m and not code.lstrip().startswith("if constexpr"):
        open_paren = m.end() - 1
        depth = 0
        for i in range(open_paren, len(code)):
            depth += code[i] == "("
            depth -= code[i] == ")"
            if depth == 0:
                inner = line[open_paren + 1:i]
                yield open_paren + 1, i, "!(" + inner + ")"
                return


_LANE_NAME = (r"(?:\w*_)?(?:k?[Ll]anes?|k?[Ss]teps?|k?[Ss]trides?|kMr|kNr|k\w*Nv|k?[Ww]idth)"
              r"(?:_\w*)?")
_LANE_DEF = re.compile(r"\b(" + _LANE_NAME + r")\s*=\s*([^;,{}]+?)\s*[;,]")
_FOR_INCR = re.compile(r"\bfor\s*\(")


def _for_step(code, line):
    """Edits of a for loop's increment: `i += s` by one either way, `++i` or `i++` to `i += 2`."""
    m = _FOR_INCR.search(code)
    if not m:
        return
    first = code.find(";", m.end())
    second = code.find(";", first + 1) if first >= 0 else -1
    if second < 0:
        return
    depth, close = 1, None
    for i in range(m.end(), len(code)):
        depth += code[i] == "("
        depth -= code[i] == ")"
        if depth == 0:
            close = i
            break
    if close is None or close < second:
        return
    step = code[second + 1:close]
    inc = re.match(r"\s*(\w+)\s*\+=\s*(.+?)\s*$", step)
    if inc:
        s = second + 1 + inc.start(2)
        e = second + 1 + inc.end(2)
        yield s, e, "(" + line[s:e] + ") + 1"
        if line[s:e].strip() != "1":
            yield s, e, "(" + line[s:e] + ") - 1"
        return
    plus = re.match(r"\s*(?:\+\+(\w+)|(\w+)\+\+)\s*$", step)
    if plus:
        name = plus.group(1) or plus.group(2)
        yield second + 1, close, " " + name + " += 2"


def rule_lane_stride(code, line=None):
    """A lane count or stride off by one: the value given to a lanes/step/stride/width name
    (a constant or a variable) one more and one less, and a for loop's increment changed by
    one. Only integers: a name declared as a container or reference is not a site."""
    line = code if line is None else line
    for m in _LANE_DEF.finditer(code):
        if code[m.end(1):m.start(2)].count("=") != 1 or code[m.start(2):].startswith("="):
            continue
        if re.search(r"[<&]|\b(auto|Tuple|Shape)\b", code[:m.start(1)]):
            continue
        s, e = m.start(2), m.end(2)
        value = line[s:e]
        if not _balanced(code[s:e]):
            continue
        yield s, e, "(" + value + ") + 1"
        yield s, e, "(" + value + ") - 1"
    yield from _for_step(code, line)


_MINMAX_CALL = re.compile(r"(?<![\w:])(?:std::)?(min|max)(?=\s*(?:<[^<>()]*>)?\s*\()")
_MINMAX_SIMD = re.compile(r"\b_mm\d*_(min|max)_ep[iu]\d+\b")
_SWAP = {"min": "max", "max": "min"}


def rule_minmax_swap(code, line=None):
    """min and max swapped: std::min <-> std::max (also unqualified, as device code calls
    them) and the SIMD _mm*_min_ep* <-> _mm*_max_ep* intrinsics."""
    if re.search(r"\b(int|int64_t|int32_t|auto|T|inline)\s+(min|max)\s*\(", code):
        return  # a definition of a min/max helper
    for pattern in (_MINMAX_CALL, _MINMAX_SIMD):
        for m in pattern.finditer(code):
            yield m.start(1), m.end(1), _SWAP[m.group(1)]


_LOGIC = re.compile(r"(?<=[\w\)\]])\s(&&|\|\|)\s(?=[\w\(!])")


def rule_logic_swap(code, line=None):
    """Logical operator swapped: `a && b` <-> `a || b` (spaced binary uses only, so an rvalue
    reference `T&& x` is not a site)."""
    for m in _LOGIC.finditer(code):
        yield m.start(1), m.end(1), "||" if m.group(1) == "&&" else "&&"


RULES = {
    "delete_stmt": rule_delete_stmt,
    "const_pm1": rule_const_pm1,
    "swap_branch": rule_swap_branch,
    "lane_stride": rule_lane_stride,
    "minmax_swap": rule_minmax_swap,
    "logic_swap": rule_logic_swap,
}
