// The single-precision half of the ducc0 backend: ducc_batch.cpp compiled again, for float
// (ducc_batch.cpp says why it is split).
#define VOLFFT_DUCC_FLOAT_HALF 1
#include "ducc_batch.cpp"
