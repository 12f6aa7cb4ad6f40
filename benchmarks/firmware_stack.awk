# Worst-case stack of a firmware image's call tree, for benchmarks/firmware_size.sh.
#   awk -v dis=<objdump -d output> -v syms=<nm -S output> -v roots="ctattn_start evaluate_at_run_time" \
#       -f firmware_stack.awk <dis file> <syms file> <object>.ci...
# Frames and calls come from GCC's -fcallgraph-info=su files (<object>.ci); functions without one (newlib's or
# picolibc's memcpy/memset, libgcc; every function of a Clang build, which writes no .ci) are read from the image's
# disassembly (objdump -d --no-show-raw-insn), Arm or RV32:
#   Arm:  pushes, vpushes and `sub sp` make the frame, bl/b to a symbol the calls, blx to a register an indirect call;
#   RV32: `addi sp,sp,-N` (objdump may print it `add`) and `add`/`sub sp,sp,<register>` with a constant from
#         lui/li/addi make the frame; jal/j to a symbol, and jalr/jr whose comment names the symbol (an auipc+jalr
#         pair, as --no-relax links every call) the calls; jalr to a register with no comment an indirect call.
# For each root (a substring of a symbol), prints one line:
#   <root> <stack bytes> <functions on the deepest path> <code bytes of every function it reaches> <flags>
# flags: "recursive" if a cycle was cut, "indirect" if a call through a pointer was seen (counted as 0),
# "unknown=<names>" for callees found in neither source (counted as 0), "asm=<names>" for callees measured
# from the disassembly.

# Symbol key: GCC titles local and COMDAT functions "<source path>:<symbol>"; the linker keeps one copy.
# An asm label (main, for the startup) is titled "*<symbol>".
function key(title) {
  if (title ~ /^\//) sub(/^[^:]*:/, "", title)
  sub(/^\*/, "", title)
  return title
}

function hex(digits,    i, value) {
  value = 0
  digits = tolower(digits)
  for (i = 1; i <= length(digits); i++) value = value * 16 + index("0123456789abcdef", substr(digits, i, 1)) - 1
  return value
}

function add_call(table, from, to) {
  if (table == "ci") {
    ci_ncalls[from]++
    ci_callee[from, ci_ncalls[from]] = to
  } else {
    dis_ncalls[from]++
    dis_callee[from, dis_ncalls[from]] = to
  }
}

# Registers in a push/vpush list such as "{r4, r5, r6, lr}" or "{d8-d9}".
function list_bytes(list,    n, i, item, parts, lo, hi, size, total) {
  gsub(/[{} ]/, "", list)
  n = split(list, parts, ",")
  total = 0
  for (i = 1; i <= n; i++) {
    item = parts[i]
    size = (item ~ /^d/) ? 8 : 4
    if (item ~ /-/) {
      lo = item; sub(/-.*/, "", lo); gsub(/[^0-9]/, "", lo)
      hi = item; sub(/.*-/, "", hi); gsub(/[^0-9]/, "", hi)
      total += (hi - lo + 1) * size
    } else {
      total += size
    }
  }
  return total
}

FILENAME == dis {
  if ($0 ~ /^[0-9a-f]+ <[^>]+>:$/) {
    fn = $0
    sub(/^[0-9a-f]+ </, "", fn)
    sub(/>:$/, "", fn)
    dis_known[fn] = 1
    dis_frame[fn] = 0
    split("", constant)
    next
  }
  if (fn == "") next
  n = split($0, f, "\t")
  if (n < 3) next
  op = f[2]
  args = f[3]
  if (op ~ /^(push|vpush)(\.w)?$/ || (op ~ /^(stmdb|stmfd|vstmdb)(\.w)?$/ && args ~ /^sp!/)) {
    list = args
    sub(/^[^{]*/, "", list)
    sub(/}.*/, "}", list)
    dis_frame[fn] += list_bytes(list)
  } else if (op ~ /^sub(\.w|w)?$/ && args ~ /^sp, (sp, )?#[0-9]+/) {
    imm = args
    sub(/^sp, (sp, )?#/, "", imm)
    sub(/[^0-9].*/, "", imm)
    dis_frame[fn] += imm + 0
  } else if (op ~ /^(bl|blx|b|b\.w|b\.n|jal|j)$/ && args ~ /<[^>+]+>$/) {
    # Arm's bl/b and RV32's jal/j (a call, or a tail call) to a symbol; a branch into the function itself names
    # "<fn+0x..>" and is no call.
    target = args
    sub(/.*</, "", target)
    sub(/>$/, "", target)
    if (target != fn) add_call("dis", fn, target)
  } else if (op == "blx" && args ~ /^(r[0-9]+|ip|lr)$/) {
    add_call("dis", fn, "__indirect_call")
  } else if (op ~ /^(jalr|jr)$/ && args ~ /# [0-9a-f]+ <[^>+]+>$/) {
    # RV32's far call `auipc ra,..; jalr -886(ra) # 80001c96 <sym>` (a far tail call `jr 12(t1) # ...`): objdump
    # resolves the pair in the comment.
    target = args
    sub(/.*</, "", target)
    sub(/>$/, "", target)
    if (target != fn) add_call("dis", fn, target)
  } else if (op == "jalr" && args !~ /#/) {
    # Rationale: a jalr objdump cannot resolve jumps through a pointer. A `jr <register>` is not counted, as Arm's
    # `bx`: in a leaf it is a switch's jump table, and GCC's tail calls to a symbol carry the comment above.
    add_call("dis", fn, "__indirect_call")
  } else if (op ~ /^(addi?|c\.addi16sp|c\.addi)$/ && args ~ /^sp,sp,-[0-9]+$/) {
    # RV32's frame. Rationale: only without objdump's "# <address>" comment: with one, the add completes an address
    # (`auipc sp,..; addi sp,sp,-8 # 84000000 <ctattn_stack_top>` sets the stack at reset), not a frame.
    imm = args
    sub(/^sp,sp,-/, "", imm)
    dis_frame[fn] += imm + 0
  } else if (op ~ /^(add|sub)$/ && args ~ /^sp,sp,[a-z][a-z0-9]*$/) {
    # RV32's frame beyond addi's 2 KB: a register holding a constant (`lui t0,0xffffc; add sp,sp,t0`).
    reg = args
    sub(/^sp,sp,/, "", reg)
    if (reg in constant) {
      imm = (op == "add") ? -constant[reg] : constant[reg]
      if (imm > 0) dis_frame[fn] += imm
    }
  } else if (op == "lui" && args ~ /^[a-z][a-z0-9]*,0x[0-9a-f]+$/) {
    split(args, part, ",")
    imm = hex(substr(part[2], 3)) * 4096
    if (imm >= 2147483648) imm -= 4294967296
    constant[part[1]] = imm
  } else if (op == "li" && args ~ /^[a-z][a-z0-9]*,-?[0-9]+$/) {
    split(args, part, ",")
    constant[part[1]] = part[2] + 0
  } else if (op ~ /^addi?$/ && args ~ /^[a-z][a-z0-9]*,[a-z][a-z0-9]*,-?[0-9]+( #.*)?$/) {
    # The low part of a lui constant (its comment, an address objdump guesses, aside).
    split(args, part, ",")
    imm = part[3]
    sub(/ .*/, "", imm)
    if (part[1] == part[2] && (part[1] in constant)) constant[part[1]] += imm + 0
    else delete constant[part[1]]
  }
  next
}

FILENAME == syms {
  # "<address> <size> <type> <name>" from nm -S: the code size of each function.
  if (NF == 4 && $3 ~ /^[tTwW]$/) code_size[$4] = hex($2)
  next
}

/^node:/ {
  title = $0
  sub(/^node: \{ title: "/, "", title)
  sub(/".*/, "", title)
  k = key(title)
  if ($0 ~ /[0-9]+ bytes \(/) {
    label = $0
    sub(/ bytes \(.*/, "", label)
    sub(/.*[^0-9]/, "", label)
    if (!(k in ci_frame) || label + 0 > ci_frame[k]) ci_frame[k] = label + 0
    if ($0 ~ /bytes \(dynamic/) ci_dynamic[k] = 1
  }
  next
}

/^edge:/ {
  src = $0
  sub(/^edge: \{ sourcename: "/, "", src)
  sub(/".*/, "", src)
  dst = $0
  sub(/.*targetname: "/, "", dst)
  sub(/".*/, "", dst)
  add_call("ci", key(src), key(dst))
  next
}

function worst(k,    own, best, i, v, n, c, from_ci) {
  if (k in memo) return memo[k]
  if (k in active) {
    recursive = 1
    return 0
  }
  if (k == "__indirect_call") {
    indirect = 1
    return 0
  }
  active[k] = 1
  reached[k] = 1
  from_ci = (k in ci_frame)
  if (from_ci) {
    own = ci_frame[k]
    n = ci_ncalls[k]
  } else if (k in dis_known) {
    own = dis_frame[k]
    n = dis_ncalls[k]
    asm_used[k] = 1
  } else {
    own = 0
    n = 0
    unknown[k] = 1
  }
  best = 0
  deepest[k] = ""
  for (i = 1; i <= n; i++) {
    c = from_ci ? ci_callee[k, i] : dis_callee[k, i]
    v = worst(c)
    if (v > best) {
      best = v
      deepest[k] = c
    }
  }
  delete active[k]
  memo[k] = own + best
  return memo[k]
}

END {
  nroots = split(roots, r, " ")
  for (j = 1; j <= nroots; j++) {
    root = ""
    for (k in ci_frame) if (index(k, r[j]) && (root == "" || length(k) < length(root))) root = k
    # Without call-graph data (a Clang build), the root is a function of the disassembly.
    if (root == "") for (k in dis_known) if (index(k, r[j]) && (root == "" || length(k) < length(root))) root = k
    if (root == "") {
      print r[j], "-", 0, 0, "missing"
      continue
    }
    recursive = 0
    indirect = 0
    for (k in unknown) delete unknown[k]
    for (k in asm_used) delete asm_used[k]
    for (k in memo) delete memo[k]
    for (k in reached) delete reached[k]
    bytes = worst(root)
    code = 0
    for (k in reached) code += code_size[k]
    depth = 0
    for (k = root; k != ""; k = deepest[k]) depth++
    flags = ""
    if (recursive) flags = flags " recursive"
    if (indirect) flags = flags " indirect"
    names = ""
    for (k in asm_used) names = names (names == "" ? "" : ",") k
    if (names != "") flags = flags " asm=" names
    names = ""
    for (k in unknown) names = names (names == "" ? "" : ",") k
    if (names != "") flags = flags " unknown=" names
    print r[j], bytes, depth, code, (flags == "" ? "-" : substr(flags, 2))
  }
}
