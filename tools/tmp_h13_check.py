import re, sys, io, contextlib, traceback
src = open("tests/ops_shape/more_fns_test.cpp").read()
scripts = re.findall(r'R"PY\((.*?)\)PY"', src, re.S)
wants = re.findall(r'R"OUT\((.*?)\)OUT"', src, re.S)
import torch
print("torch", torch.__version__)
ok = True
for i, (s, w) in enumerate(zip(scripts, wants)):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(s, f"script{i}", "exec"), {})
        except Exception:
            traceback.print_exc(file=buf)
    got = buf.getvalue()
    if got != w:
        ok = False
        print(f"=== script {i} differs\n--- torch:\n{got}--- want:\n{w}")
    else:
        print(f"=== script {i} same")
# the capture script too
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    exec(compile(open("tests/capture/equal_to_eager/more_torch_fns.py").read(), "more_torch_fns", "exec"), {})
open(sys.argv[1], "w").write(buf.getvalue())
print("ALL SAME" if ok else "SOME DIFFER")
