// Package stats computes descriptive statistics of a list of numbers.
//
// Describe reports the count, sum, mean, median, minimum, maximum, range,
// modes, population and sample variance and standard deviation, the
// quartiles and interquartile range, and any requested percentiles.
//
// Each input float64 is read as the shortest decimal that round-trips to
// it (the digits strconv.FormatFloat(v, 'g', -1, 64) prints), so 0.1 is
// the decimal 0.1. Sums, the mean, variances, the range, quartiles and
// percentiles are then computed exactly in rational arithmetic and rounded
// once to the nearest float64: [0.1, 0.2] sums to exactly 0.3. Standard
// deviations are square roots of the exact variances taken with 128-bit
// precision before rounding.
//
// Percentiles use linear interpolation between closest ranks, the R-7
// method and NumPy's default: the p-th percentile of n sorted values is at
// zero-based rank h = (n-1)·p/100, interpolating between the values at
// floor(h) and floor(h)+1. The median is the 50th percentile and Q1/Q3
// are the 25th/75th.
//
// Errors about the input are *Error values whose messages say how to fix
// the request.
package stats
