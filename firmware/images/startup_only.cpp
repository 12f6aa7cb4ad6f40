// Firmware image: the startup code alone (vector table, FPU enable where the core has one, semihosting exit and
// print), the baseline that the size table subtracts to state what a model costs "beyond the startup".
int main() { return 0; }
