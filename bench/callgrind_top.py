"""Self cost (Ir) per function in a callgrind dump, per request: callgrind_top.py FILE REQUESTS [TOP].
With INCLUSIVE=1 in the environment, a second list ranks functions by inclusive cost (self plus calls made)."""
import collections, os, re, sys

names = {}
def resolve(kind, text):
    match = re.match(r'\((\d+)\)(?: (.*))?', text)
    if not match:
        return text
    key = (kind, match.group(1))
    if match.group(2):
        names[key] = match.group(2)
    return names.get(key, text)

self_cost, calls, inclusive = collections.Counter(), collections.Counter(), collections.Counter()
function = callee = None
after_calls = False
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    if line.startswith('fn='):
        function = resolve('fn', line[3:])
    elif line.startswith('cfn='):
        callee = resolve('fn', line[4:])
    elif line.startswith('calls='):
        after_calls = True
        calls[callee] += int(line[6:].split()[0])
    elif line[:1].isdigit() or line[:1] in '+-*':
        parts = line.split()
        if len(parts) >= 2:
            if after_calls:
                after_calls = False   # the inclusive cost of a call, not self cost
                inclusive[function] += int(parts[1])
            else:
                self_cost[function] += int(parts[1])

requests = int(sys.argv[2])
total = sum(self_cost.values())
print(f"instructions per request: {total / requests:,.0f}")
for function, cost in self_cost.most_common(int(sys.argv[3]) if len(sys.argv) > 3 else 25):
    print(f"{cost / requests:9,.0f}  {100 * cost / total:5.1f}%  {calls[function] / requests:6.2f} calls  {function[:140]}")

if os.environ.get("INCLUSIVE"):
    for function in self_cost:
        inclusive[function] += self_cost[function]
    print("by inclusive cost:")
    for function, cost in inclusive.most_common(int(sys.argv[3]) if len(sys.argv) > 3 else 25):
        print(f"{cost / requests:9,.0f}  {100 * cost / total:5.1f}%  {function[:140]}")
