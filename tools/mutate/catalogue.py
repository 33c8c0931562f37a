"""Source-level mutants of the kernels, with ids that stay stable across runs.

A mutant is one textual edit of one line. Its id is file:line:kind:ordinal, where ordinal
counts the mutants of that kind on that line in left-to-right order; the same source gives the
same ids, so tools/mutate/equivalent.txt can name them. (An edit above a line shifts its
number: equivalent.txt records the line's text too, and the runner warns when it no longer
matches.)

The rules are deliberately lexical (regular expressions over a line, with comments and string
literals blanked first): they need no compiler, and a rule that produces code that does not
compile costs one failed build, reported as build-failed and excluded from the scores.
"""

import dataclasses
import glob
import os
import re

import isas
import more_rules

KINDS = ("relop", "off_by_one", "swap_index", "drop_clamp", "narrow_int32", "rounding",
         "drop_bias", "error_class", "wrong_rule")
# The random draw's rules (more_rules.py): statement deletion, constant +-1, the other branch,
# a lane count or stride off by one, min/max and &&/|| swapped. Not in KINDS, so the nightly
# catalogue of every mutant (ci/mutation-nightly.sh) keeps its size; ask for them by name.
ALL_KINDS = KINDS + more_rules.EXTRA_KINDS

# infer/ holds the validity rules of the production path (optimized and cuda-host run them):
# only its rule ids are mutated (wrong_rule); its other code is not a kernel.
RULE_FILES = ("infer/",)


@dataclasses.dataclass
class Mutant:
    """One edit: replace line `line` (1-based) of `path` by `mutated`."""
    path: str
    line: int
    kind: str
    ordinal: int
    original: str
    mutated: str
    function: str = ""
    ops: tuple = ()

    @property
    def id(self):
        return f"{self.path}:{self.line}:{self.kind}:{self.ordinal}"

    def describe(self):
        return f"{self.original.strip()}  =>  {self.mutated.strip()}"


# Kernel files of another processor's ISAs (optimized/isa_list.h): the mutation runs build for
# x86, where these compile to nothing and a mutant of them would survive uncompiled.
OTHER_PROCESSOR_FILES = isas.other_processor_files()


def kernel_files(repo):
    """optimized/*.cc and *.h, cuda/*.cu and *.h once that directory exists, and infer/*.cc
    (for wrong_rule only); not OTHER_PROCESSOR_FILES."""
    found = []
    for pattern in ("optimized/*.cc", "optimized/*.h", "cuda/*.cu", "cuda/*.cuh", "cuda/*.h",
                    "infer/*.cc"):
        found += glob.glob(os.path.join(repo, pattern))
    files = (os.path.relpath(p, repo) for p in found)
    return sorted(f for f in files if f not in OTHER_PROCESSOR_FILES)


def code_part(line):
    """The line with // comments and string/char literals blanked (same length, so offsets
    into it are offsets into the line)."""
    out, i, quote = [], 0, None
    while i < len(line):
        c = line[i]
        if quote:
            out.append(" " if c != quote else c)
            if c == "\\":
                out.append(" ")
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            out.append(c)
        elif line.startswith("//", i):
            out.append(" " * (len(line) - i))
            break
        else:
            out.append(c)
        i += 1
    return "".join(out)[:len(line)]


def _call_args(code, open_paren):
    """Spans (start, end) of the top-level arguments of the call whose '(' is at open_paren,
    and the index of its ')'; None when unbalanced on this line."""
    spans, start = [], open_paren + 1
    while True:
        i, c = more_rules.depth0_stop(code, start, ",")
        if c is None:
            return None
        spans.append((start, i))
        if c != ",":
            return spans, i  # the bracket that closes the call
        start = i + 1


# --- rules: each yields (start, end, replacement) edits on the line -------------------------

_FOR = re.compile(r"\bfor\s*\(")
_RELOP = re.compile(r"(?<=[\w\)\]\s])\s(<=|>=|==|!=|<|>)\s(?=[\w\(\-!])")
_FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}


def _for_condition_span(code):
    """(start, end) of the condition of a for statement on this line, if any."""
    m = _FOR.search(code)
    if not m:
        return None
    first = code.find(";", m.end())
    second = code.find(";", first + 1) if first >= 0 else -1
    return (first + 1, second) if second > first else None


def rule_relop(code):
    """Relational operator flips outside for-loop conditions (those are off_by_one's)."""
    cond = _for_condition_span(code)
    for m in _RELOP.finditer(code):
        if cond and cond[0] <= m.start() < cond[1]:
            continue
        op = m.group(1)
        if op in ("<", ">") and _looks_like_template(code, m.start(1)):
            continue
        yield m.start(1), m.end(1), _FLIP[op]


def _looks_like_template(code, at):
    before = code[:at].rstrip()
    return before.endswith(("template", "static_cast", "std::vector", "std::max", "std::min"))


_BOUND = re.compile(r"(\w+)\s(<|<=|>|>=)\s([^;]+)")
_MINMAX = re.compile(r"\bstd::(min|max|clamp)(<[\w:]+>)?\(")


def rule_off_by_one(code):
    """Loop bounds: the for condition's bound - 1 and the loop start + 1; clamps: the upper
    bound of std::min/std::clamp - 1, the lower bound of std::max + 1."""
    cond = _for_condition_span(code)
    if cond:
        m = _BOUND.search(code, cond[0], cond[1])
        if m:
            end = m.end(3)
            yield end, end, " - 1"
        init = re.search(r"=\s*([^;]+);", code[code.find("(") + 1:cond[0]])
        if init:
            base = code.find("(") + 1
            s, e = base + init.start(1), base + init.end(1)
            yield s, e, "(" + code[s:e].strip() + ") + 1"
    for m in _MINMAX.finditer(code):
        parsed = _call_args(code, m.end() - 1)
        if not parsed:
            continue
        args, _ = parsed
        if m.group(1) == "max" and len(args) == 2:
            s, e = args[1]
            yield s, e, " (" + code[s:e].strip() + ") + 1"
        elif m.group(1) in ("min", "clamp") and len(args) >= 2:
            s, e = args[-1]
            yield s, e, " (" + code[s:e].strip() + ") - 1"


_PAIRS = [("_h", "_w"), ("a_", "b_")]
_EXACT = [("sa", "sb"), ("ra", "rb"), ("kh", "kw"), ("sh", "sw"), ("ph", "pw"), ("dh", "dw"),
          ("oh", "ow"), ("ih", "iw"), ("height", "width"), ("rows", "cols"), ("x", "w")]
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_MEMBER_LIST = re.compile(r"^\s*[\w:<>]+\s+[\w\s,]+;\s*$")
_DECLARED = re.compile(r"\s*=[^=]")
_DECL_LINE = re.compile(r"\s*(const\s+)?(auto|int|int32_t|int64_t|size_t|bool|[A-Z]\w*)[\s*&]")


def _sibling(name, names_in_file):
    for a, b in _EXACT:
        if name == a and b in names_in_file:
            return b
        if name == b and a in names_in_file:
            return a
    for a, b in _PAIRS:
        for x, y in ((a, b), (b, a)):
            if x.startswith("_") and name.endswith(x) and len(name) > len(x):
                other = name[: -len(x)] + y
            elif x.endswith("_") and name.startswith(x) and len(name) > len(x):
                other = y + name[len(x):]
            else:
                continue
            if other in names_in_file:
                return other
    return None


def make_rule_swap_index(names_in_file):
    """Swapped indices or strides: an h/w, a/b or x/w identifier replaced by its sibling."""
    def rule(code):
        if code.lstrip().startswith("#") or _MEMBER_LIST.match(code):
            return
        for m in _IDENT.finditer(code):
            if code[:m.start()].rstrip().endswith((".", "->")) and m.group() in ("x", "w"):
                continue
            if _DECLARED.match(code[m.end():]) and _DECL_LINE.match(code):
                continue  # renaming a declared name only redeclares its sibling
            other = _sibling(m.group(), names_in_file)
            if other:
                yield m.start(), m.end(), other
    return rule


_CLAMP_CALL = re.compile(r"\b(std::clamp|std::min|std::max|\w*clamp\w*|\w*saturat\w*)(<[\w:]+>)?\(")


def rule_drop_clamp(code):
    """Dropped clamp or saturation: clamp(v, lo, hi), min(v, hi) or max(v, lo) becomes v."""
    for m in _CLAMP_CALL.finditer(code):
        name = m.group(1)
        if code[m.start():].startswith(("std::clamp<", "std::min<", "std::max<")) and m.group(2) is None:
            continue
        if re.search(r"\b(int64_t|int|auto|void|bool)\s+$", code[:m.start()]):
            continue  # a declaration of the clamp helper, not a call
        parsed = _call_args(code, m.end() - 1)
        if not parsed:
            continue
        args, close = parsed
        if len(args) < 2:
            continue
        s, e = args[0]
        cast = m.group(2)[1:-1] if m.group(2) else None
        body = code[s:e].strip()
        yield m.start(), close + 1, f"static_cast<{cast}>({body})" if cast else f"({body})"


_I64 = re.compile(r"\bint64_t\b")


def rule_narrow_int32(code):
    """int32 narrowing of an int64 intermediate: a local, a parameter, a cast or a braced
    conversion of type int64_t becomes int32_t (for-loop counters excluded)."""
    cond = _for_condition_span(code)
    for m in _I64.finditer(code):
        if cond and code.find("(") < m.start() < cond[0]:
            continue  # the loop counter
        after = code[m.end():]
        before = code[:m.start()]
        if re.match(r"\s+\w+\s*(=|,|\)|;|\{)", after) or after.startswith("{") or \
                before.endswith(("static_cast<", "std::max<", "std::min<", "std::clamp<")):
            if before.rstrip().endswith(("std::vector<", "Buffer<")):
                continue
            yield m.start(), m.end(), "int32_t"


_ARITH_BEFORE = re.compile(r"(\s[-+*/]|>>|<<)\s*$")
_LITERAL = re.compile(r"(?<![\w.])(\d+)(?![\w.])")


def rule_rounding(code):
    """Wrong rounding constant: an integer literal operand of + - * / << >> on a line that
    shifts right or divides becomes one less (0 becomes 1)."""
    if not re.search(r"\s>>\s|\s/\s|\s>>=\s", code):
        return
    for m in _LITERAL.finditer(code):
        if not _ARITH_BEFORE.search(code[:m.start()]):
            continue  # a comparison or a selected value, not a rounding constant
        v = int(m.group(1))
        yield m.start(), m.end(), str(v - 1 if v > 0 else 1)


_BIAS_NULL = re.compile(r"\b([\w.>-]*bias\w*)\s*!=\s*nullptr")
_USE_BIAS = re.compile(r"\b(\w+\.)?use_bias\b(?!\s*=[^=])")
_PLUS_BIAS = re.compile(r"\s\+\s([\w.>-]*bias\w*(\[[^\]]*\])?)")


def rule_drop_bias(code):
    """Dropped bias: `bias != nullptr` and `use_bias` become false, `+ bias[...]` goes."""
    for m in _BIAS_NULL.finditer(code):
        yield m.start(), m.end(), "false"
    for m in _USE_BIAS.finditer(code):
        if re.search(r"\bbool\s+$", code[:m.start()]):
            continue
        yield m.start(), m.end(), "false"
    for m in _PLUS_BIAS.finditer(code):
        yield m.start(), m.end(), ""


_ERR = {"LogicError": "RuntimeError", "RuntimeError": "LogicError",
        "fail_logic": "fail_runtime", "fail_runtime": "fail_logic"}
_ERR_RE = re.compile(r"\b(LogicError|RuntimeError|fail_logic|fail_runtime)\b")


def rule_error_class(code):
    """Swapped error class: LogicError <-> RuntimeError, fail_logic <-> fail_runtime."""
    for m in _ERR_RE.finditer(code):
        yield m.start(), m.end(), _ERR[m.group(1)]


_LITERAL_STRING = re.compile(r'"([a-z0-9_]+)"')
_GLOBAL_RULE = re.compile(r"\brules::k\w+\b")


def make_rule_wrong_rule(rule_names_in_file, globals_in_file):
    """The right class for the wrong rule: a rule id raised by infer/ (a bare rule name literal
    or a rules::k... constant) replaced by the next other one the file raises, as when two
    checks' ids are swapped or a check is folded into another. The rule reads the literals from
    the original line (code_part blanks them), so it takes both."""
    names = sorted(rule_names_in_file)
    constants = sorted(globals_in_file)

    def next_other(sorted_ids, current):
        others = [i for i in sorted_ids if i != current]
        if not others:
            return None
        later = [i for i in others if i > current]
        return (later or others)[0]

    def rule(code, line):
        for m in _LITERAL_STRING.finditer(line):
            if code[m.start()] != '"' or m.group(1) not in rule_names_in_file:
                continue  # inside a comment, or a message
            other = next_other(names, m.group(1))
            if other:
                yield m.start(), m.end(), f'"{other}"'
        for m in _GLOBAL_RULE.finditer(code):
            other = next_other(constants, m.group())
            if other:
                yield m.start(), m.end(), other
    return rule


def _rules(names_in_file):
    return {
        "relop": rule_relop,
        "off_by_one": rule_off_by_one,
        "swap_index": make_rule_swap_index(names_in_file),
        "drop_clamp": rule_drop_clamp,
        "narrow_int32": rule_narrow_int32,
        "rounding": rule_rounding,
        "drop_bias": rule_drop_bias,
        "error_class": rule_error_class,
        **more_rules.RULES,
    }


def _skippable(code):
    s = code.strip()
    return not s or s.startswith(("#include", "#pragma", "//", "using ", "namespace", "static_assert"))


def mutants_of_file(repo, path, attribute, rule_names=(), kinds=KINDS, anywhere=False):
    """Every mutant of one file; `attribute(path, lines, index)` gives (function, ops);
    `rule_names`: the operators' bare rule names (`cvmcheck ops --json`'s rule_ids keys whose id
    is not global), which wrong_rule swaps; `kinds`: the rules to apply. By default infer/
    gets wrong_rule only and the kernels every other kind; `anywhere` applies every kind to
    every file (the random draw: infer/'s checks are production code like the kernels)."""
    with open(os.path.join(repo, path)) as f:
        text = f.read()
    lines = text.split("\n")
    code_lines = [code_part(l) for l in lines]
    names = set(_IDENT.findall("\n".join(code_lines)))
    rules = _rules(names)
    in_file = {n for n in _LITERAL_STRING.findall(text) if n in set(rule_names)}
    globals_in_file = set(_GLOBAL_RULE.findall("\n".join(code_lines)))
    rules["wrong_rule"] = make_rule_wrong_rule(in_file, globals_in_file)
    rule_file = path.startswith(RULE_FILES)
    result = []
    for index, line in enumerate(lines):
        code = code_lines[index]
        if _skippable(code):
            continue
        for kind in kinds:
            if not anywhere and rule_file != (kind == "wrong_rule"):
                continue  # infer/: rule ids only; the kernels raise none
            seen = set()
            ordinal = 0
            takes_line = kind == "wrong_rule" or kind in more_rules.EXTRA_KINDS
            edits = rules[kind](code, line) if takes_line else rules[kind](code)
            for start, end, repl in edits:
                mutated = line[:start] + repl + line[end:]
                if mutated == line or mutated in seen:
                    continue
                seen.add(mutated)
                function, ops = attribute(path, lines, index)
                result.append(Mutant(path, index + 1, kind, ordinal, line, mutated, function,
                                     tuple(ops)))
                ordinal += 1
    return result


def catalogue(repo, attribute, files=None, rule_names=(), kinds=KINDS, anywhere=False):
    """Every mutant of the given kernel files (default: all of them)."""
    files = files or kernel_files(repo)
    out = []
    for path in files:
        out += mutants_of_file(repo, path, attribute, rule_names, kinds, anywhere)
    return out


def apply(repo_or_tree, mutant):
    """Writes the mutant into the tree; returns the original text for restore()."""
    full = os.path.join(repo_or_tree, mutant.path)
    with open(full) as f:
        text = f.read()
    lines = text.split("\n")
    if lines[mutant.line - 1] != mutant.original:
        raise ValueError(f"{mutant.id}: line changed since the catalogue was made")
    lines[mutant.line - 1] = mutant.mutated
    with open(full, "w") as f:
        f.write("\n".join(lines))
    return text


def restore(repo_or_tree, mutant, text):
    """Puts the original bytes back. The fresh mtime makes the next build recompile the file,
    which ccache answers from the unmutated object."""
    full = os.path.join(repo_or_tree, mutant.path)
    with open(full, "w") as f:
        f.write(text)
