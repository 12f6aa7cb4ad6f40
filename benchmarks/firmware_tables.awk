# The tables of docs/firmware.md that benchmarks/firmware_size.sh writes (--write) and checks (--check):
#   awk -v rows=FILE -v toolchain="<versions>" -v header="| Core | Image | ... |" -f firmware_tables.awk PAGE
#   (<versions>: arm-none-eabi-gcc, clang, qemu-system-arm, riscv64-unknown-elf-gcc, qemu-system-riscv32)
# prints the page with
#   - the cost table, between `<!-- begin firmware_size.sh cost; toolchain: ... -->` and
#     `<!-- end firmware_size.sh cost -->`: each core's rows from FILE where FILE measured that core, else as the page
#     had them, the cores in the boards' order;
#   - the tables derived from it, between `<!-- begin firmware_size.sh <name> -->` and `<!-- end firmware_size.sh
#     <name> -->`: `glance` (each model image's sizes, call-graph stack and instructions, by core), `int8` (the
#     verified model in float and int8 on each core, and their ratio of instructions), `quantized` (docs/
#     quantized.md: instructions of the int8 and float images on the M3, M4F, M33, M55 and Helium), `kwt_tiny` (the
#     KWT-Tiny-size model in int8 and float, one inference, by core) and `keyword_spotter` (examples/keyword_spotting/
#     README.md: the example's model likewise, one sample, with the images' flash).
#     The tables by core list every core with the images, the RV32 boards' too (after the Cortex-M ones);
#     `quantized` names its five Cortex-M columns and leaves the others out.
# With -v heavy=1 -v kwt1_macs=N, FILE holds the rows of KWT-1's images (built on demand) and only the `kwt1` table
# (KWT-1 in int8 and float, with int8 instructions per multiply-add and flash) is written; the rest of the page as
# it was.
# With -v derived_only=1 the page need not hold the cost table: FILE has every row (another page's derived tables).
# Every other line as it was.

function trim(s) {
  gsub(/^[ \t]+|[ \t]+$/, "", s)
  return s
}

# A row's cells, trimmed, in cell[1..n]; returns n.
function cells(row, cell,    parts, n, i) {
  n = split(row, parts, "|")
  for (i = 2; i < n; ++i) cell[i - 1] = trim(parts[i])
  return n - 2
}

# 1234567 -> 1,234,567 (a cell that is not a whole number, as it is).
function commas(s,    out) {
  if (s !~ /^[0-9]+$/) return s
  out = ""
  while (length(s) > 3) {
    out = "," substr(s, length(s) - 2) out
    s = substr(s, 1, length(s) - 3)
  }
  return s out
}

function core_rank(core) {
  if (core in rank) return rank[core]
  rank[core] = ++ranks
  return rank[core]
}

# What the page calls an image in the derived tables; "" leaves it out of them.
function label(core, image,    name, helium) {
  name = ""
  if (image == "worked_example") name = "worked example"
  else if (image == "worked_example_three_heads") name = "3 wide heads"
  else if (image == "worked_example_int8") name = "worked example, int8"
  else if (image == "int8_attention") name = "int8 attention (5 x 7, d_k 8)"
  else if (image == "worked_example_fast") name = "worked example, fast"
  else if (image == "worked_example_three_heads_fast") name = "3 wide heads, fast"
  else if (image == "verified_sorter") name = "verified model, 4 sequences"
  else if (image == "verified_sorter_int8") name = "verified model, int8, 4 sequences"
  else if (image == "kwt_tiny") name = "KWT-Tiny's size"
  else if (image == "kwt_tiny_int8") name = "KWT-Tiny's size, int8"
  else if (image == "keyword_spotter") name = "keyword spotter, 2 samples"
  else if (image == "keyword_spotter_int8") name = "keyword spotter, int8, 2 samples"
  # Clang's Helium board builds the float images with exact arithmetic, and the `_fast` ones with the backend.
  helium = core ~ /Helium/
  if (name != "" && helium && image !~ /int8|_fast$/) name = name ", exact"
  return name
}

function int8_core(core) {
  if (core == "Cortex-M0" || core == "Cortex-M3") return core " (no FPU)"
  if (core == "Cortex-M55") return core " (GCC: scalar float, DSP int8)"
  if (core == "Cortex-M55 Helium (Clang)") return "Cortex-M55 Helium (Clang: exact float, Helium int8)"
  if (core == "RV32IMAC (rv32e)") return "RV32IMAC (rv32e, no FPU)"
  if (core == "RV32IMAFDCV (rv32gcv, Clang)") return "RV32IMAFDCV (rv32gcv, Clang: exact float, RVV int8)"
  return core
}

# "<read-only data> / <measured stack of one inference> / <instructions>" of a cost row.
function model_figures(row,    cell, stack) {
  cells(row, cell)
  split(cell[10], stack, "/")
  sub(/ .*/, "", cell[7])
  return commas(cell[7]) " / " commas(trim(stack[2])) " / " commas(cell[11])
}

function print_glance(    k, cell, stack, core, name) {
  print "| Core | Example | text | bss | code beyond startup | read-only data beyond startup (weights) | stack, call graph: one inference / whole image | instructions per inference |"
  print "|---|---|---:|---:|---:|---:|---:|---:|"
  for (k = 1; k <= count; ++k) {
    cells(final[k], cell)
    core = cell[1]
    name = label(core, cell[2])
    if (name == "") continue
    split(cell[9], stack, "/")
    print "| " core " | " name " | " cell[3] " | " cell[5] " | " cell[6] " | " cell[7] " | " \
          trim(stack[2]) " / " trim(stack[1]) " | " commas(cell[11]) " |"
  }
}

function print_int8(    k, cell, core, float_row, int8_row, cores, order, n, i, f, q, fi, qi) {
  print "| Core | float: read-only data / stack / instructions | int8: read-only data / stack / instructions | int8 / float instructions |"
  print "|---|---|---|---:|"
  n = 0
  for (k = 1; k <= count; ++k) {
    cells(final[k], cell)
    core = cell[1]
    if (!(core in cores)) { cores[core] = 1; order[++n] = core }
    if (cell[2] == "verified_sorter") float_row[core] = final[k]
    if (cell[2] == "verified_sorter_int8") int8_row[core] = final[k]
  }
  for (i = 1; i <= n; ++i) {
    core = order[i]
    if (!(core in int8_row)) continue
    q = model_figures(int8_row[core])
    if (core in float_row) {
      f = model_figures(float_row[core])
      cells(float_row[core], cell); fi = cell[11]
      cells(int8_row[core], cell); qi = cell[11]
      print "| " int8_core(core) " | " f " | " q " | " sprintf("%.2f", qi / fi) " |"
    } else {
      print "| " int8_core(core) " | - | " q " | - |"
    }
  }
}

# A model's table, from its int8 and float images' rows: per core, instructions per inference of each (the image's
# figure divided by `inputs`, the inferences it times), int8 / float, and the painted stack of one inference.
# With `per_mac` > 0, also int8 instructions per multiply-add; with `flash`, both images' text. The cores whose
# float image did not run (no FPU) show "-" in the float cells.
function print_model(int8_image, float_image, inputs, per_mac, flash,    k, cell, core, cores, order, n, i, q, f, line,
                     qs, fs, qt, ft, stack) {
  line = "| Core | int8 | float (exact arithmetic) | int8 / float |"
  if (per_mac > 0) line = line " int8 per multiply-add |"
  if (flash) line = line " flash (text), int8 / float |"
  print line " stack of one inference, int8 / float (painted) |"
  line = "|---|---:|---:|---:|"
  if (per_mac > 0) line = line "---:|"
  if (flash) line = line "---:|"
  print line "---:|"
  n = 0
  for (k = 1; k <= count; ++k) {
    cells(final[k], cell)
    core = cell[1]
    if (cell[2] != int8_image && cell[2] != float_image) continue
    if (!(core in cores)) { cores[core] = 1; order[++n] = core }
    split(cell[10], stack, "/")
    if (cell[2] == int8_image) { q[core] = cell[11] / inputs; qs[core] = trim(stack[2]); qt[core] = cell[3] }
    else { f[core] = cell[11] / inputs; fs[core] = trim(stack[2]); ft[core] = cell[3] }
  }
  for (i = 1; i <= n; ++i) {
    core = order[i]
    if (!(core in q)) continue
    line = "| " core " | " commas(sprintf("%.0f", q[core])) " | "
    line = line ((core in f) ? commas(sprintf("%.0f", f[core])) " | " sprintf(q[core] / f[core] < 0.1 ? "%.3f" : "%.2f", q[core] / f[core]) : "- | -") " |"
    if (per_mac > 0) line = line " " sprintf("%.2f", q[core] / per_mac) " |"
    if (flash) line = line " " commas(qt[core]) " / " ((core in f) ? commas(ft[core]) : "-") " |"
    print line " " commas(qs[core]) " / " ((core in f) ? commas(fs[core]) : "-") " |"
  }
}

# docs/quantized.md's table: instructions per inference of the int8 and float images on the cores that show the int8
# backends (the M3's loop, the DSP extension, Helium).
function print_quantized(    k, cell, n, i, j, cores, heads, images, names, value, line) {
  n = split("Cortex-M3;Cortex-M4F;Cortex-M33;Cortex-M55;Cortex-M55 Helium (Clang)", cores, ";")
  split("M3;M4F;M33;M55 (GCC);M55 Helium", heads, ";")
  split("int8_attention;worked_example_int8;worked_example;verified_sorter_int8;verified_sorter", images, ";")
  split("int8 attention (5 queries, 7 keys);worked example, int8;worked example, float;" \
        "verified model, int8, 4 sequences;verified model, float, 4 sequences", names, ";")
  line = "| image (instructions per inference, `qemu-system-arm -icount shift=0`) |"
  for (j = 1; j <= n; ++j) line = line " " heads[j] " |"
  print line
  line = "|---|"
  for (j = 1; j <= n; ++j) line = line "---:|"
  print line
  for (k = 1; k <= count; ++k) {
    cells(final[k], cell)
    value[cell[1], cell[2]] = commas(cell[11])
  }
  for (i = 1; i <= 5; ++i) {
    line = "| " names[i] " |"
    for (j = 1; j <= n; ++j) {
      if ((cores[j], images[i]) in value) {
        line = line " " value[cores[j], images[i]]
        if (cores[j] ~ /Helium/ && images[i] !~ /int8/) line = line " (exact)"
        line = line " |"
      } else {
        line = line " - |"
      }
    }
    print line
  }
}

BEGIN {
  # Rationale: every board's core in the boards' order, so that the rows keep their places whichever board is
  # measured (--check measures one, and takes the others' rows from the page).
  split("Cortex-M0;Cortex-M3;Cortex-M4F;Cortex-M7;Cortex-M33;Cortex-M55;Cortex-M55 Helium (Clang);" \
        "RV32IMAC (rv32e);RV32IMAFDC (rv32gc);RV32IMAFDCV (rv32gcv, Clang)", known, ";")
  for (k = 1; k in known; ++k) core_rank(known[k])
  while ((getline line < rows) > 0) {
    cells(line, cell)
    measured[cell[1]] = 1
    fresh[cell[1]] = fresh[cell[1]] line "\n"
    core_rank(cell[1])
  }
  close(rows)
}

{ page[++lines] = $0 }

END {
  # The cost table: the page's rows of the cores not measured, the measured ones' new rows.
  inside = 0
  for (k = 1; k <= lines; ++k) {
    if (page[k] ~ /^<!-- begin firmware_size\.sh cost/) { inside = 1; found = 1; continue }
    if (page[k] ~ /^<!-- end firmware_size\.sh cost -->/) inside = 0
    if (inside && page[k] ~ /^\| / && page[k] !~ /^\| Core \|/) {
      cells(page[k], cell)
      if (!(cell[1] in measured)) kept[cell[1]] = kept[cell[1]] page[k] "\n"
      core_rank(cell[1])
    }
  }
  # A page without the cost table (derived_only=1) takes every row from FILE.
  if (!found && !derived_only) {
    print "firmware_tables.awk: no `<!-- begin firmware_size.sh cost` line in the page" > "/dev/stderr"
    exit 2
  }
  count = 0
  for (r = 1; r <= ranks; ++r) {
    for (core in rank) {
      if (rank[core] != r) continue
      n = split((core in measured) ? fresh[core] : kept[core], part, "\n")
      for (i = 1; i < n; ++i) final[++count] = part[i]
    }
  }
  # The page, each table between its lines written anew.
  skipping = 0
  for (k = 1; k <= lines; ++k) {
    line = page[k]
    if (skipping) {
      if (line ~ /^<!-- end firmware_size\.sh /) { print line; skipping = 0 }
      continue
    }
    if (heavy) {
      print line
      if (line ~ /^<!-- begin firmware_size\.sh kwt1 -->/) {
        print_model("kwt1_int8", "kwt1", 2, kwt1_macs, 1)
        skipping = 1
      }
      continue
    }
    if (line ~ /^<!-- begin firmware_size\.sh cost/) {
      print "<!-- begin firmware_size.sh cost; toolchain: " toolchain " -->"
      print header
      print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
      for (i = 1; i <= count; ++i) print final[i]
      skipping = 1
    } else if (line ~ /^<!-- begin firmware_size\.sh glance -->/) {
      print line
      print_glance()
      skipping = 1
    } else if (line ~ /^<!-- begin firmware_size\.sh int8 -->/) {
      print line
      print_int8()
      skipping = 1
    } else if (line ~ /^<!-- begin firmware_size\.sh quantized -->/) {
      print line
      print_quantized()
      skipping = 1
    } else if (line ~ /^<!-- begin firmware_size\.sh kwt_tiny -->/) {
      print line
      print_model("kwt_tiny_int8", "kwt_tiny", 2, 0, 0)
      skipping = 1
    } else if (line ~ /^<!-- begin firmware_size\.sh keyword_spotter -->/) {
      print line
      print_model("keyword_spotter_int8", "keyword_spotter", 2, 0, 1)
      skipping = 1
    } else if (line ~ /^<!-- begin firmware_size\.sh kwt1 -->/) {
      # KWT-1's images are built on demand (label `heavy`): their rows come only with firmware_size.sh --heavy
      # (-v heavy=1), which writes this table alone; otherwise it stays as the page has it.
      print line
    } else {
      print line
    }
  }
}
