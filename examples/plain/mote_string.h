/* The few C library string functions the examples use, declared here so the
   programs build for targets without a C library (msp430 here). */
#ifndef WSN_EXAMPLES_MOTE_STRING_H
#define WSN_EXAMPLES_MOTE_STRING_H
#include <stddef.h>
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
char *strcpy(char *dst, const char *src);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
#endif
