# What the firmware benchmark scripts share (firmware_size.sh, firmware_int8_kernels.sh, firmware_models_cmsis_nn.sh),
# sourced after they set $root:
#   toolchain            "<arm-none-eabi-gcc version> <clang version> <qemu-system-arm version>", - for one missing:
#                        the figures of these scripts are deterministic for one toolchain, and only for it
#   riscv_toolchain      "<riscv64-unknown-elf-gcc version> <qemu-system-riscv32 version>", the same for the RV32 boards
#   board_toolchain B    the file in cmake/toolchains/ that builds board B (RV32 boards: riscv32-unknown-elf.cmake)
#   board_binutils B     the prefix of the binutils that read board B's images (riscv64-unknown-elf for the RV32
#                        boards, arm-none-eabi for the others): "$(board_binutils B)-size" ...
#   cmsis_nn_commit DIR  the commit of a CMSIS-NN checkout (its first 7 hex digits), or "of unknown commit" when DIR
#                        is not a git checkout
#   take_write_option "$@"
#                        reads a leading `--write FILE` (benchmarks/write_option.sh)
#   write_doc_block FILE NAME
#                        writes standard input into FILE's block NAME (benchmarks/doc_blocks.py), the begin line
#                        naming the calling script

toolchain() {
  local gcc clang qemu
  gcc=$(arm-none-eabi-gcc -dumpfullversion 2>/dev/null || echo -)
  clang=$(clang --version 2>/dev/null | sed -nE '1s/.*version ([0-9][0-9.]*).*/\1/p')
  qemu=$(qemu-system-arm --version 2>/dev/null | sed -nE '1s/.*version ([0-9][0-9.]*).*/\1/p')
  echo "${gcc:--} ${clang:--} ${qemu:--}"
}

riscv_toolchain() {
  local gcc qemu
  gcc=$(riscv64-unknown-elf-gcc -dumpfullversion 2>/dev/null || echo -)
  qemu=$(qemu-system-riscv32 --version 2>/dev/null | sed -nE '1s/.*version ([0-9][0-9.]*).*/\1/p')
  echo "${gcc:--} ${qemu:--}"
}

board_toolchain() {
  case $1 in
    rv32*) echo riscv32-unknown-elf.cmake ;;
    *) echo arm-none-eabi.cmake ;;
  esac
}

board_binutils() {
  case $1 in
    rv32*) echo riscv64-unknown-elf ;;
    *) echo arm-none-eabi ;;
  esac
}

cmsis_nn_commit() {
  local commit
  commit=$(git -C "$1" rev-parse --short=7 HEAD 2>/dev/null) || commit=""
  echo "${commit:-of unknown commit}"
}

write_doc_block() {
  /usr/bin/python3 "$root/benchmarks/doc_blocks.py" --write "$1" --block "$2" --script "$(basename "$0")"
}


# take_write_option: benchmarks/write_option.sh.
source "$root/benchmarks/write_option.sh"
