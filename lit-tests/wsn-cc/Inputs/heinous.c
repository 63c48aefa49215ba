/* A GNU extension clang accepts only with -fheinous-gnu-extensions: a cast as an asm output. */
unsigned int Heinous$out;
unsigned int Heinous$in = 7;
int main(void) {
  __asm__ __volatile__("mov %1, %0" : "=r"((int)Heinous$out) : "r"(Heinous$in));
  return FLAG;
}
