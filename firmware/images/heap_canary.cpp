// Deliberately uses the heap. Never run: the no-heap check must reject this image (test
// firmware_no_heap_check_rejects_malloc), which proves the check that guards the real images works.
#include <cstdlib>

int main() {
  void* volatile block = std::malloc(16);
  std::free(block);
  return 0;
}
