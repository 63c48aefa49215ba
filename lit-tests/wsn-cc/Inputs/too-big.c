/* 12 KiB of initialised RAM data: more than the MSP430F1611's 10 KiB of RAM. */
unsigned char big[12 * 1024] = {1};
int main(void) { return big[100]; }
