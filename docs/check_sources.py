#!/usr/bin/env python3
"""The guide's sources (ctest docs.sources):

- README.md has at most 200 lines, and its one C++ block is the very text of
  examples/minimal/hello.cpp (built against the installed package and run by
  scripts/test-package.sh and scripts/test-deb.sh), so the front page's app compiles and runs;
- no page of the guide (README.md, docs/**/*.md, docs/*.dox) holds code of its own: C++, Python,
  JavaScript, CMake, YAML and GLSL come from the files CI compiles and runs, through Doxygen's
  \\snippet and \\include. Blocks of command lines and of program output (``` or ```sh) stay,
  and must not hold such code either (a line such as "#include", "std::", "import x", "def f(").

    docs/check_sources.py REPO_ROOT      exit status 1 with every problem listed
"""
import os
import re
import sys

CODE_LANGUAGES = {"c", "cpp", "c++", "cc", "cxx", "h", "hpp", "cmake", "python", "py", "python3", "js",
                  "javascript", "mjs", "ts", "typescript", "yaml", "yml", "glsl", "json"}
CODE_LINE = re.compile(r"^\s*(#include\b|import \w|from \w[\w.]* import\b|def \w+\(|class \w+[:(]|"
                       r".*\bstd::|.*\bnft::\w+\s+\w+\s*[({;=]|find_package\(|target_link_libraries\()")
MAX_README_LINES = 200


def fenced_blocks(text):
    """(info string, first line number, lines) of each ``` block."""
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^\s*```\s*([^`\s]*)", lines[i])
        if m:
            start, info, body = i + 1, m.group(1).lower(), []
            i += 1
            while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
                body.append(lines[i])
                i += 1
            blocks.append((info, start, body))
        i += 1
    return blocks


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_sources.py REPO_ROOT")
    root = sys.argv[1]
    problems = []
    readme_path = os.path.join(root, "README.md")
    readme = open(readme_path, encoding="utf-8").read()
    n = readme.count("\n")
    if n > MAX_README_LINES:
        problems.append(f"README.md: {n} lines, more than {MAX_README_LINES}: move the rest to docs/")
    hello = open(os.path.join(root, "examples/minimal/hello.cpp"), encoding="utf-8").read()
    cpp = [b for b in fenced_blocks(readme) if b[0] in ("cpp", "c++")]
    if len(cpp) != 1:
        problems.append(f"README.md: {len(cpp)} C++ blocks; expected one, examples/minimal/hello.cpp")
    elif "\n".join(cpp[0][2]) + "\n" != hello:
        problems.append(f"README.md:{cpp[0][1]}: the C++ block is not examples/minimal/hello.cpp as it is: "
                        "copy the file into the block")

    pages = [readme_path]
    for folder, _, files in os.walk(os.path.join(root, "docs")):
        pages += [os.path.join(folder, f) for f in files if f.endswith((".md", ".dox"))]
    for page in sorted(pages):
        name = os.path.relpath(page, root)
        text = open(page, encoding="utf-8").read()
        for info, line, body in fenced_blocks(text):
            if page == readme_path and info in ("cpp", "c++"):
                continue
            if info in CODE_LANGUAGES:
                problems.append(f"{name}:{line}: a ```{info} block: include the code from a file CI compiles "
                                "and runs (\\snippet FILE MARKER, \\include FILE)")
                continue
            for k, l in enumerate(body):
                if CODE_LINE.match(l):
                    problems.append(f"{name}:{line + 1 + k}: code in a command or output block ({l.strip()[:60]}): "
                                    "include it from a compiled file")
        for m in re.finditer(r"^\s*[@\\](code|verbatim)\b", text, re.M):
            problems.append(f"{name}:{text[:m.start()].count(chr(10)) + 1}: \\{m.group(1)}: include the code from a "
                            "file CI compiles and runs (\\snippet, \\include)")
    for p in problems:
        print(p)
    print(f"check_sources: README.md {n} lines; {len(pages)} pages; {len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
