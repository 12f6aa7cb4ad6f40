# The --write option of the scripts that write a document's tables (the speed scripts through speed_common.sh, the
# firmware scripts through firmware_common.sh), sourced by those two files:
#   take_write_option "$@"   reads a leading `--write FILE` (and `--block NAME` after it: the block "<script> NAME",
#                            for a second table of the same script) into write_to and write_block; the caller then
#                            shifts write_shift arguments

write_to=""
write_block=""
write_shift=0
take_write_option() {
  if [[ "${1:-}" == --write ]]; then
    [[ $# -ge 2 ]] || { echo "--write needs a file (the document whose tables are written: docs/...)" >&2; exit 2; }
    write_to="$2"
    write_shift=2
    if [[ "${3:-}" == --block ]]; then
      [[ $# -ge 4 ]] || { echo "--block needs a name" >&2; exit 2; }
      write_block="$4"
      write_shift=4
    fi
  fi
}
