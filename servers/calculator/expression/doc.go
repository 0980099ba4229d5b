// Package expression is a safe, exact, arbitrary-precision calculator engine.
//
// Evaluate parses and evaluates a small expression language and returns the
// value of the last statement. Results are exact rationals whenever the
// mathematics allows it; irrational results are computed to the requested
// number of significant digits (34 by default, up to 1000) and are correct to
// the last digit shown. Evaluation is bounded in time, memory and size, never
// panics, and reports problems as *Error values that give the position and say
// what to do.
//
// # Statements
//
// A program is one or more statements separated by ";" or line breaks. A
// statement is an expression or an assignment "name = expression"; assigned
// variables can be used by later statements. The result is the value of the
// last statement, and Result.Variables lists every assigned variable. Names
// consist of ASCII letters, digits and underscores, do not start with a digit,
// are case-sensitive, and cannot be a constant, a function or the word "of".
//
// # Numbers
//
// Literals are integers (42), decimals (0.5, .5, 1.) and scientific notation
// (1e-3, 2.5E10, 1e+6). Underscores and thousands separators are not allowed.
// Literals are exact: 0.1 is exactly one tenth, so 0.1 + 0.2 is exactly 0.3.
//
// # Operators
//
// From lowest to highest precedence:
//
//	< <= > >= == !=   comparison: at most one per expression, gives true or false
//	+ -               addition and subtraction
//	* / % of          multiplication, division, modulo, percent-of
//	- +               unary sign
//	^ **              power, right-associative
//	! %               postfix factorial and percent
//
// So -2^2 = -4, 2^-1 = 0.5, 2^3^2 = 512 and 3!^2 = 36. Implicit
// multiplication such as 2pi or 2(3+4) is a syntax error: write 2*pi. The
// Unicode signs × ÷ − ≤ ≥ ≠ and π are accepted as spellings of * / - <= >= != pi.
//
// Comparisons of exact values are exact. When a side is inexact, the values
// are compared at the working precision: values that agree to within it
// compare equal (so sqrt(2)^2 == 2 is true) and Result.Exact is then false.
// Booleans cannot be used in arithmetic; two booleans can be compared with ==
// and !=.
//
// Modulo is truncated, as in C, Go and JavaScript: a % b = a - trunc(a/b)·b,
// so the remainder has the sign of the dividend (-7 % 3 = -1). It also works
// on non-integers (7.5 % 2 = 1.5). mod(a, b) is the same operation.
//
// A power with a rational exponent p/q takes the real q-th root, so a negative
// base is allowed when q is odd: (-8)^(1/3) = -2. 0^0 is 1.
//
// # Percent
//
// A "%" followed by an operand (a number, a name or "(") is modulo; any other
// "%" (at the end, before ")", ",", an operator or "of") is a percent sign:
//
//	50%          0.5: x% is x/100
//	a + b%       a·(1 + b/100): 200 + 10% = 220
//	a - b%       a·(1 - b/100): 200 - 10% = 180
//	a * b%       a·b/100: 200 * 10% = 20
//	b% of a      a·b/100: 20% of 150 = 30; "of" binds like *
//	7 % 3        1: modulo, because an operand follows
//
// The a + b% and a - b% rules apply when the right operand of + or - is
// directly a percentage; parentheses turn them off, so 100 + (5%) = 100.05.
// Because a "%" before an operator is a percent sign, 7 % -3 means 7% - 3;
// write 7 % (-3) or mod(7, -3) for a modulo by a negative number.
//
// # Constants and functions
//
// Constants: pi, e, tau (2π) and phi (the golden ratio).
//
// Functions: sqrt, cbrt, abs, exp, ln, log(x) (base 10), log(x, base), log2,
// log10, sin, cos, tan, sec, csc, cot, asin, acos, atan, atan2(y, x), sinh,
// cosh, tanh, asinh, acosh, atanh, round, floor, ceil, trunc, gcd(a, b, ...),
// lcm(a, b, ...), min(...), max(...), ncr(n, k) (also nCr, comb), npr(n, k)
// (also nPr, perm), factorial(n), mod(a, b), hypot(x, y) and pow(x, y).
//
// round, floor, ceil and trunc take an optional number of decimal places;
// negative places round to tens, hundreds and so on: round(1234, -2) = 1200.
// round rounds halves away from zero: round(2.5) = 3, round(-2.5) = -3.
//
// Trigonometric functions use radians unless Options.Degrees is set, in which
// case they take degrees and the inverse functions return degrees.
//
// # Exactness
//
// Values are exact rationals whenever the result is rational: + - * / and
// modulo, integer powers (including negative ones), factorial, gcd, lcm, ncr,
// npr, abs, min, max, rounding, percentages, and roots and rational powers
// that come out rational (sqrt(16) = 4, sqrt(0.25) = 0.5, 8^(1/3) = 2,
// 4^0.5 = 2). Logarithms that are simple rationals are exact (log(1000) = 3,
// log(8, 2) = 3, log(27, 9) = 1.5). Trigonometric functions are exact where
// the answer is rational for angles known exactly: exact numbers in degrees
// mode and exact rational multiples of pi in radians mode, so sin(pi) = 0,
// sin(pi/6) = 0.5, tan(pi/4) = 1 and, in degrees, sin(30) = 0.5; likewise
// asin(0.5) is exactly 30 degrees, or pi/6.
//
// Other results are irrational and are rounded to Options.Precision
// significant digits (Result.Exact is false). They are computed with guard
// digits and then recomputed with more (Ziv's strategy): the answer is
// returned once two passes agree on every digit shown, raising the working
// precision as far as about 20000 digits when they do not. A difference
// between inexact values that cancels to below the working precision (such as
// sqrt(2)^2 - 2) is taken as 0, and is confirmed by passes with at least
// 3·Precision+120 guard digits; the result then shows 0 even if the true value
// is smaller than that precision can resolve.
//
// Rounding an inexact value (round, floor, ceil, trunc) gives an exact result
// when the value is clearly away from the rounding boundary, so floor(pi*100)
// is exactly 314. A value that is an integer or boundary to within the working
// precision, such as sqrt(2)^2, counts as one, and results built on that
// decision (floor(sqrt(2)^2) = 2, factorial(sqrt(3)^2) = 6) are reported as
// inexact.
//
// # Output
//
// Result.Value is a decimal string with trailing zeros removed. Exact values
// are shown in full, in plain notation when their magnitude is between 1e-30
// and 1e+1000 and in scientific notation with every digit otherwise. A rational
// with a non-terminating expansion, such as 1/3, is rounded to Precision
// digits and Result.Fraction holds it exactly ("1/3"). With Options.Round, an
// exact value of more digits than Precision is rounded to Precision too
// (Result.Exact is false) and Result.Full keeps every digit. Rounded values use plain
// notation when the decimal exponent is within ±40 and below Precision, and
// scientific notation such as 1.234e-50 or 2.5e+43 otherwise. Result.Kind is
// "integer" for exact integers, "boolean" for comparisons and "decimal"
// otherwise. For comparisons, Result.Exact is false when the two sides were
// equal only to within the working precision.
//
// # Limits
//
// The source is at most 4096 bytes, 100 statements, 2000 numbers, names and
// operators, and 64 levels of nesting. Exact numerators and denominators have
// at most 20000 digits: sizes are estimated before computing, so 9^9^9^9 or
// 100000! fail at once with Kind "too_large". A power refused this way
// names the rewrite that gives its approximate value, such as
// exp(100000*ln(2)) for 2^100000, only after evaluating that rewrite; no
// refusal hint proposes a rewrite that fails for that input. Inexact magnitudes are limited to about
// 1e±1000000. Operations whose inexact inputs are too large to give the
// digits asked for, such as the sine of an inexact 1e300 or a remainder with
// an enormous quotient, also fail with "too_large"; exact inputs are reduced
// with whatever internal precision they need. Long computations check the
// context, and a context that ends stops the evaluation with Kind "limit"
// wrapping ctx.Err().
package expression
