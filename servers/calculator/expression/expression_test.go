package expression

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// evalCase is one successful evaluation and its expected result.
type evalCase struct {
	src      string
	opts     Options
	value    string
	kind     string
	exact    bool
	fraction string
}

var deg = Options{Degrees: true}

// exactCases are results that are exact (or exactly rounded rationals).
var exactCases = []evalCase{
	// Arithmetic, precedence and associativity.
	{"2 + 3 * 4", Options{}, "14", "integer", true, ""},
	{"(2 + 3) * 4", Options{}, "20", "integer", true, ""},
	{"10 - 4 - 3", Options{}, "3", "integer", true, ""},
	{"100 / 10 / 5", Options{}, "2", "integer", true, ""},
	{"2 * 3 / 4", Options{}, "1.5", "decimal", true, ""},
	{"0.1 + 0.2", Options{}, "0.3", "decimal", true, ""},
	{"0.1 + 0.2 == 0.3", Options{}, "true", "boolean", true, ""},
	{"1 - 0.9", Options{}, "0.1", "decimal", true, ""},
	{"7 / 2", Options{}, "3.5", "decimal", true, ""},
	{"1 / 3", Options{}, "0.3333333333333333333333333333333333", "decimal", false, "1/3"},
	{"2 / 3", Options{}, "0.6666666666666666666666666666666667", "decimal", false, "2/3"},
	{"-1 / 7", Options{}, "-0.1428571428571428571428571428571429", "decimal", false, "-1/7"},
	{"1/3 + 1/6", Options{}, "0.5", "decimal", true, ""},
	{"1/3 * 3", Options{}, "1", "integer", true, ""},
	{"22 / 7", Options{Precision: 10}, "3.142857143", "decimal", false, "22/7"},
	{"-2^2", Options{}, "-4", "integer", true, ""},
	{"(-2)^2", Options{}, "4", "integer", true, ""},
	{"2^-1", Options{}, "0.5", "decimal", true, ""},
	{"2^-10", Options{}, "0.0009765625", "decimal", true, ""},
	{"2^3^2", Options{}, "512", "integer", true, ""},
	{"2**3**2", Options{}, "512", "integer", true, ""},
	{"(2^3)^2", Options{}, "64", "integer", true, ""},
	{"3!^2", Options{}, "36", "integer", true, ""},
	{"-3!", Options{}, "-6", "integer", true, ""},
	{"2^3!", Options{}, "64", "integer", true, ""},
	{"--3", Options{}, "3", "integer", true, ""},
	{"+3 - -3", Options{}, "6", "integer", true, ""},
	{"2 * -3", Options{}, "-6", "integer", true, ""},
	{"2^200", Options{}, "1606938044258990275541962092341162602522202993782792835301376", "integer", true, ""},
	{"50!", Options{}, "30414093201713378043612608166064768844377641568960512000000000000", "integer", true, ""},
	{"0!", Options{}, "1", "integer", true, ""},
	{"factorial(25)", Options{}, "15511210043330985984000000", "integer", true, ""},
	{"3^40", Options{}, "12157665459056928801", "integer", true, ""},
	{"10^-3", Options{}, "0.001", "decimal", true, ""},
	{"(2/3)^-2", Options{}, "2.25", "decimal", true, ""},
	{"0^0", Options{}, "1", "integer", true, ""},
	{"0^5", Options{}, "0", "integer", true, ""},
	{"1^1e4000", Options{}, "1", "integer", true, ""},
	{"(-1)^(10^4000+1)", Options{}, "-1", "integer", true, ""},
	{"pow(2, 10)", Options{}, "1024", "integer", true, ""},
	{"2 × 3 ÷ 4 − 1", Options{}, "0.5", "decimal", true, ""},

	// Numbers.
	{".5", Options{}, "0.5", "decimal", true, ""},
	{"1.", Options{}, "1", "integer", true, ""},
	{"1e-3", Options{}, "0.001", "decimal", true, ""},
	{"2.5E10", Options{}, "25000000000", "integer", true, ""},
	{"1e+3", Options{}, "1000", "integer", true, ""},
	{"007", Options{}, "7", "integer", true, ""},
	{"1.50", Options{}, "1.5", "decimal", true, ""},
	{"0.000000000000000000000000000001", Options{}, "0.000000000000000000000000000001", "decimal", true, ""},
	{"1e-31", Options{}, "1e-31", "decimal", true, ""},
	{"1.25e-40", Options{}, "1.25e-40", "decimal", true, ""},
	{"10^999", Options{}, "1" + strings.Repeat("0", 999), "integer", true, ""},
	{"10^1000", Options{}, "1e+1000", "integer", true, ""},
	{"2^-100", Options{}, "7.888609052210118054117285652827862296732064351090230047702789306640625e-31", "decimal", true, ""},

	// Modulo: truncated, the sign follows the dividend.
	{"7 % 3", Options{}, "1", "integer", true, ""},
	{"-7 % 3", Options{}, "-1", "integer", true, ""},
	{"7 % (-3)", Options{}, "1", "integer", true, ""},
	{"-7 % (-3)", Options{}, "-1", "integer", true, ""},
	{"7.5 % 2", Options{}, "1.5", "decimal", true, ""},
	{"mod(-7, 3)", Options{}, "-1", "integer", true, ""},
	{"10 % 3 * 2", Options{}, "2", "integer", true, ""},
	{"(3*pi) % pi", Options{}, "0", "integer", true, ""},

	// Percent.
	{"50%", Options{}, "0.5", "decimal", true, ""},
	{"200 + 10%", Options{}, "220", "integer", true, ""},
	{"200 - 10%", Options{}, "180", "integer", true, ""},
	{"200 * 10%", Options{}, "20", "integer", true, ""},
	{"200 / 10%", Options{}, "2000", "integer", true, ""},
	{"20% of 150", Options{}, "30", "integer", true, ""},
	{"20 % of 150", Options{}, "30", "integer", true, ""},
	{"2 of 3", Options{}, "6", "integer", true, ""},
	{"100 + (5%)", Options{}, "100.05", "decimal", true, ""},
	{"100 + 5%*2", Options{}, "100.1", "decimal", true, ""},
	{"50% + 50%", Options{}, "0.75", "decimal", true, ""},
	{"(10)%", Options{}, "0.1", "decimal", true, ""},
	{"10%%", Options{}, "0.001", "decimal", true, ""},
	{"max(5%, 3%)", Options{}, "0.05", "decimal", true, ""},
	{"7 % -3", Options{}, "-2.93", "decimal", true, ""},
	{"x = 80; x - 25%", Options{}, "60", "integer", true, ""},
	{"1000 + 1000 * 5%", Options{}, "1050", "integer", true, ""},

	// Comparisons.
	{"1 < 2", Options{}, "true", "boolean", true, ""},
	{"2 <= 2", Options{}, "true", "boolean", true, ""},
	{"3 > 4", Options{}, "false", "boolean", true, ""},
	{"3 >= 4", Options{}, "false", "boolean", true, ""},
	{"1/3 == 2/6", Options{}, "true", "boolean", true, ""},
	{"1 != 1", Options{}, "false", "boolean", true, ""},
	{"3!=6", Options{}, "true", "boolean", true, ""},
	{"2 + 2 ≠ 5", Options{}, "true", "boolean", true, ""},
	{"(1 < 2) == (3 < 4)", Options{}, "true", "boolean", true, ""},
	{"pi > 3.14", Options{}, "true", "boolean", true, ""},
	{"pi < 3.1415926535897932384626433832795029", Options{}, "true", "boolean", true, ""},
	{"atan(1)*4 == pi", Options{}, "true", "boolean", true, ""},
	{"sqrt(2)^2 == 2", Options{}, "true", "boolean", false, ""},
	{"sqrt(2) * sqrt(2) > 2", Options{}, "false", "boolean", false, ""},
	{"e^2 == exp(2)", Options{}, "true", "boolean", false, ""},
	{"t = 1 < 2; t", Options{}, "true", "boolean", true, ""},

	// Variables and statements.
	{"x = 3; y = 4; sqrt(x^2 + y^2)", Options{}, "5", "integer", true, ""},
	{"a = 1\nb = a + 1\nb * 10", Options{}, "20", "integer", true, ""},
	{"x = 2; x = x * x; x", Options{}, "4", "integer", true, ""},
	{"r = 3; area = pi * r^2; round(area, 2)", Options{}, "28.27", "decimal", true, ""},
	{"1; 2; 3", Options{}, "3", "integer", true, ""},
	{"\n\n 5 ;; \n", Options{}, "5", "integer", true, ""},
	{"_tmp1 = 5; _tmp1 + 1", Options{}, "6", "integer", true, ""},
	{"x = 5", Options{}, "5", "integer", true, ""},

	// Roots and rational powers stay exact when the result is rational.
	{"sqrt(16)", Options{}, "4", "integer", true, ""},
	{"sqrt(0.25)", Options{}, "0.5", "decimal", true, ""},
	{"sqrt(4/9)", Options{}, "0.6666666666666666666666666666666667", "decimal", false, "2/3"},
	{"sqrt(0)", Options{}, "0", "integer", true, ""},
	{"sqrt(10^40)", Options{}, "100000000000000000000", "integer", true, ""},
	{"cbrt(27)", Options{}, "3", "integer", true, ""},
	{"cbrt(-0.008)", Options{}, "-0.2", "decimal", true, ""},
	{"8^(1/3)", Options{}, "2", "integer", true, ""},
	{"4^0.5", Options{}, "2", "integer", true, ""},
	{"27^(2/3)", Options{}, "9", "integer", true, ""},
	{"(-8)^(1/3)", Options{}, "-2", "integer", true, ""},
	{"(-8)^(2/3)", Options{}, "4", "integer", true, ""},
	{"16^-0.25", Options{}, "0.5", "decimal", true, ""},
	{"(3^600)^(1/600)", Options{}, "3", "integer", true, ""},
	{"hypot(3, 4)", Options{}, "5", "integer", true, ""},
	{"abs(-2.5)", Options{}, "2.5", "decimal", true, ""},

	// Logarithms with rational answers.
	{"log(1000)", Options{}, "3", "integer", true, ""},
	{"log(0.001)", Options{}, "-3", "integer", true, ""},
	{"log10(10^50)", Options{}, "50", "integer", true, ""},
	{"log(8, 2)", Options{}, "3", "integer", true, ""},
	{"log(2, 4)", Options{}, "0.5", "decimal", true, ""},
	{"log(27, 9)", Options{}, "1.5", "decimal", true, ""},
	{"log2(1024)", Options{}, "10", "integer", true, ""},
	{"log2(0.125)", Options{}, "-3", "integer", true, ""},
	{"ln(1)", Options{}, "0", "integer", true, ""},
	{"exp(0)", Options{}, "1", "integer", true, ""},

	// Rounding: halves away from zero; negative digits round to tens, hundreds.
	{"round(2.5)", Options{}, "3", "integer", true, ""},
	{"round(-2.5)", Options{}, "-3", "integer", true, ""},
	{"round(2.4999)", Options{}, "2", "integer", true, ""},
	{"round(2.675, 2)", Options{}, "2.68", "decimal", true, ""},
	{"round(1234, -2)", Options{}, "1200", "integer", true, ""},
	{"round(1250, -2)", Options{}, "1300", "integer", true, ""},
	{"round(1/3, 5)", Options{}, "0.33333", "decimal", true, ""},
	{"round(pi, 4)", Options{}, "3.1416", "decimal", true, ""},
	{"round(-pi, 2)", Options{}, "-3.14", "decimal", true, ""},
	{"floor(-2.5)", Options{}, "-3", "integer", true, ""},
	{"floor(2.5)", Options{}, "2", "integer", true, ""},
	{"floor(2.567, 2)", Options{}, "2.56", "decimal", true, ""},
	{"floor(pi*1e33)", Options{}, "3141592653589793238462643383279502", "integer", true, ""},

	{"ceil(2.1)", Options{}, "3", "integer", true, ""},
	{"ceil(-2.1)", Options{}, "-2", "integer", true, ""},
	{"ceil(1234, -2)", Options{}, "1300", "integer", true, ""},
	{"trunc(-2.7)", Options{}, "-2", "integer", true, ""},
	{"trunc(2.789, 1)", Options{}, "2.7", "decimal", true, ""},
	{"trunc(e, 3)", Options{}, "2.718", "decimal", true, ""},

	// Integer functions.
	{"gcd(12, 18)", Options{}, "6", "integer", true, ""},
	{"gcd(12, 18, 8)", Options{}, "2", "integer", true, ""},
	{"gcd(-12, 18)", Options{}, "6", "integer", true, ""},
	{"gcd(0, 0)", Options{}, "0", "integer", true, ""},
	{"lcm(4, 6)", Options{}, "12", "integer", true, ""},
	{"lcm(4, 6, 10)", Options{}, "60", "integer", true, ""},
	{"lcm(0, 5)", Options{}, "0", "integer", true, ""},
	{"ncr(5, 2)", Options{}, "10", "integer", true, ""},
	{"nCr(52, 5)", Options{}, "2598960", "integer", true, ""},
	{"comb(100, 50)", Options{}, "100891344545564193334812497256", "integer", true, ""},
	{"ncr(5, 0)", Options{}, "1", "integer", true, ""},
	{"ncr(10^30, 3)", Options{}, "166666666666666666666666666666166666666666666666666666666667000000000000000000000000000000", "integer", true, ""},
	{"npr(5, 2)", Options{}, "20", "integer", true, ""},
	{"nPr(10, 3)", Options{}, "720", "integer", true, ""},
	{"perm(10, 0)", Options{}, "1", "integer", true, ""},
	{"min(3, 1, 2)", Options{}, "1", "integer", true, ""},
	{"max(3, 1, 2)", Options{}, "3", "integer", true, ""},
	{"min(-1/3, -0.3)", Options{}, "-0.3333333333333333333333333333333333", "decimal", false, "-1/3"},
	{"max(7)", Options{}, "7", "integer", true, ""},

	// Exact trigonometry: exact angles in degrees mode, rational multiples of pi in radians.
	{"sin(0)", Options{}, "0", "integer", true, ""},
	{"cos(0)", Options{}, "1", "integer", true, ""},
	{"tan(0)", Options{}, "0", "integer", true, ""},
	{"sin(pi)", Options{}, "0", "integer", true, ""},
	{"cos(pi)", Options{}, "-1", "integer", true, ""},
	{"sin(pi/6)", Options{}, "0.5", "decimal", true, ""},
	{"cos(pi/3)", Options{}, "0.5", "decimal", true, ""},
	{"sin(-pi/2)", Options{}, "-1", "integer", true, ""},
	{"sin(tau)", Options{}, "0", "integer", true, ""},
	{"cos(2*pi/3)", Options{}, "-0.5", "decimal", true, ""},
	{"tan(pi/4)", Options{}, "1", "integer", true, ""},
	{"tan(3*pi/4)", Options{}, "-1", "integer", true, ""},
	{"cot(pi/4)", Options{}, "1", "integer", true, ""},
	{"cot(pi/2)", Options{}, "0", "integer", true, ""},
	{"sec(pi/3)", Options{}, "2", "integer", true, ""},
	{"csc(pi/6)", Options{}, "2", "integer", true, ""},
	{"sin(1000001*pi)", Options{}, "0", "integer", true, ""},
	{"pi - pi", Options{}, "0", "integer", true, ""},
	{"tau / pi", Options{}, "2", "integer", true, ""},
	{"sin(30)", deg, "0.5", "decimal", true, ""},
	{"cos(60)", deg, "0.5", "decimal", true, ""},
	{"sin(90)", deg, "1", "integer", true, ""},
	{"sin(180)", deg, "0", "integer", true, ""},
	{"cos(180)", deg, "-1", "integer", true, ""},
	{"sin(-30)", deg, "-0.5", "decimal", true, ""},
	{"sin(390)", deg, "0.5", "decimal", true, ""},
	{"cos(-240)", deg, "-0.5", "decimal", true, ""},
	{"tan(45)", deg, "1", "integer", true, ""},
	{"tan(135)", deg, "-1", "integer", true, ""},
	{"tan(180)", deg, "0", "integer", true, ""},
	{"cot(90)", deg, "0", "integer", true, ""},
	{"sec(60)", deg, "2", "integer", true, ""},
	{"csc(-30)", deg, "-2", "integer", true, ""},
	{"asin(0.5)", deg, "30", "integer", true, ""},
	{"asin(-1)", deg, "-90", "integer", true, ""},
	{"acos(0.5)", deg, "60", "integer", true, ""},
	{"acos(-1)", deg, "180", "integer", true, ""},
	{"acos(0)", deg, "90", "integer", true, ""},
	{"atan(1)", deg, "45", "integer", true, ""},
	{"atan(-1)", deg, "-45", "integer", true, ""},
	{"atan2(1, 1)", deg, "45", "integer", true, ""},
	{"atan2(1, -1)", deg, "135", "integer", true, ""},
	{"atan2(-1, -1)", deg, "-135", "integer", true, ""},
	{"atan2(0, -5)", deg, "180", "integer", true, ""},
	{"atan2(-3, 0)", deg, "-90", "integer", true, ""},
	{"sin(asin(0.5))", Options{}, "0.5", "decimal", true, ""},
	{"acos(0.5) * 3 == pi", Options{}, "true", "boolean", true, ""},
	{"sinh(0)", Options{}, "0", "integer", true, ""},
	{"cosh(0)", Options{}, "1", "integer", true, ""},
	{"tanh(0)", Options{}, "0", "integer", true, ""},
	{"asinh(0)", Options{}, "0", "integer", true, ""},
	{"acosh(1)", Options{}, "0", "integer", true, ""},
	{"atanh(0)", Options{}, "0", "integer", true, ""},
}

// inexactCases are irrational results; the expected digits come from mpmath.
var inexactCases = []evalCase{
	{"sqrt(2)", Options{}, "1.414213562373095048801688724209698", "decimal", false, ""},
	{"pi", Options{}, "3.141592653589793238462643383279503", "decimal", false, ""},
	{"e", Options{}, "2.718281828459045235360287471352662", "decimal", false, ""},
	{"tau", Options{}, "6.283185307179586476925286766559006", "decimal", false, ""},
	{"phi", Options{}, "1.618033988749894848204586834365638", "decimal", false, ""},
	{"sin(1)", Options{}, "0.841470984807896506652502321630299", "decimal", false, ""},
	{"cos(1)", Options{}, "0.5403023058681397174009366074429766", "decimal", false, ""},
	{"tan(1)", Options{}, "1.55740772465490223050697480745836", "decimal", false, ""},
	{"sec(1)", Options{}, "1.85081571768092561791175324139865", "decimal", false, ""},
	{"csc(1)", Options{}, "1.188395105778121216261599452374551", "decimal", false, ""},
	{"cot(1)", Options{}, "0.6420926159343307030064199865942656", "decimal", false, ""},
	{"sin(-2.5)", Options{}, "-0.5984721441039564940518547021861623", "decimal", false, ""},
	{"cos(100)", Options{}, "0.8623188722876839341019385139508425", "decimal", false, ""},
	{"tan(-0.7)", Options{}, "-0.8422883804630794481281350022129377", "decimal", false, ""},
	{"asin(0.3)", Options{}, "0.3046926540153975079720029612275292", "decimal", false, ""},
	{"acos(0.3)", Options{}, "1.266103672779499111259318730412222", "decimal", false, ""},
	{"acos(-0.9)", Options{}, "2.690565841793530805917998747485151", "decimal", false, ""},
	{"atan(0.3)", Options{}, "0.2914567944778670919956046214328912", "decimal", false, ""},
	{"atan(-2)", Options{}, "-1.107148717794090503017065460178537", "decimal", false, ""},
	{"atan(1e10)", Options{}, "1.570796326694896619231321691640085", "decimal", false, ""},
	{"atan2(1, -1)", Options{}, "2.356194490192344928846982537459627", "decimal", false, ""},
	{"atan2(-2, -3)", Options{}, "-2.553590050042225687217032302654417", "decimal", false, ""},
	{"atan2(3, 4)", Options{}, "0.6435011087932843868028092287173226", "decimal", false, ""},
	{"sinh(1)", Options{}, "1.175201193643801456882381850595601", "decimal", false, ""},
	{"cosh(1)", Options{}, "1.543080634815243778477905620757062", "decimal", false, ""},
	{"tanh(1)", Options{}, "0.7615941559557648881194582826047936", "decimal", false, ""},
	{"tanh(-0.001)", Options{}, "-0.0009999996666667999999460317679012257", "decimal", false, ""},
	{"sinh(1e-10)", Options{}, "0.0000000001000000000000000000001666666666667", "decimal", false, ""},
	{"asinh(1)", Options{}, "0.8813735870195430252326093249797923", "decimal", false, ""},
	{"asinh(-1e-5)", Options{}, "-0.000009999999999833333333340833333332887", "decimal", false, ""},
	{"acosh(2)", Options{}, "1.316957896924816708625046347307968", "decimal", false, ""},
	{"acosh(1.000001)", Options{}, "0.001414213444521991367540170672198897", "decimal", false, ""},
	{"atanh(0.5)", Options{}, "0.5493061443340548456976226184612629", "decimal", false, ""},
	{"atanh(-0.999)", Options{}, "-3.800201167250200031775967267809004", "decimal", false, ""},
	{"ln(2)", Options{}, "0.6931471805599453094172321214581766", "decimal", false, ""},
	{"ln(1.0000001)", Options{}, "0.00000009999999500000033333330833333533333", "decimal", false, ""},
	{"ln(1e100)", Options{}, "230.2585092994045684017991454684364", "decimal", false, ""},
	{"log(2)", Options{}, "0.301029995663981195213738894724493", "decimal", false, ""},
	{"log2(3)", Options{}, "1.584962500721156181453738943947817", "decimal", false, ""},
	{"log(5, 3)", Options{}, "1.46497352071792716719704040767864", "decimal", false, ""},
	{"log10(0.5)", Options{}, "-0.301029995663981195213738894724493", "decimal", false, ""},
	{"exp(1)", Options{}, "2.718281828459045235360287471352662", "decimal", false, ""},
	{"exp(100)", Options{}, "2.688117141816135448412625551580014e+43", "decimal", false, ""},
	{"exp(-100)", Options{}, "3.720075976020835962959695803863118e-44", "decimal", false, ""},
	{"exp(0.5)", Options{}, "1.648721270700128146848650787814164", "decimal", false, ""},
	{"exp(-1e-20)", Options{}, "0.99999999999999999999", "decimal", false, ""},
	{"cbrt(2)", Options{}, "1.259921049894873164767210607278228", "decimal", false, ""},
	{"cbrt(-5)", Options{}, "-1.70997594667669698935310887254386", "decimal", false, ""},
	{"2^0.5", Options{}, "1.414213562373095048801688724209698", "decimal", false, ""},
	{"2^pi", Options{}, "8.824977827076287623856429604208002", "decimal", false, ""},
	{"pi^e", Options{}, "22.45915771836104547342715220454374", "decimal", false, ""},
	{"1.5^2.5", Options{}, "2.755675960631075360471944584044128", "decimal", false, ""},
	{"10^0.3", Options{}, "1.995262314968879601352455396739536", "decimal", false, ""},
	{"2^(1/3)", Options{}, "1.259921049894873164767210607278228", "decimal", false, ""},
	{"(-2)^(1/3)", Options{}, "-1.259921049894873164767210607278228", "decimal", false, ""},
	{"sin(1e30)", Options{}, "-0.09011690191213805803038642895298733", "decimal", false, ""},
	{"sin(355)", Options{}, "-0.0000301443533594884492143302800086501", "decimal", false, ""},
	{"sin(1e-50)", Options{}, "1e-50", "decimal", false, ""},
	{"cos(1e-20)", Options{}, "1", "decimal", false, ""},
	{"hypot(1, 1)", Options{}, "1.414213562373095048801688724209698", "decimal", false, ""},
	{"sqrt(2e-30)", Options{}, "0.000000000000001414213562373095048801688724209698", "decimal", false, ""},
	{"sqrt(10^41)", Options{}, "316227766016837933199.8893544432719", "decimal", false, ""},
	{"e^1000", Options{}, "1.970071114017046993888879352243323e+434", "decimal", false, ""},
	{"pi*1e50", Options{}, "3.141592653589793238462643383279503e+50", "decimal", false, ""},
	{"pi/1e50", Options{}, "3.141592653589793238462643383279503e-50", "decimal", false, ""},
	{"1/sqrt(2)", Options{}, "0.707106781186547524400844362104849", "decimal", false, ""},
	{"sqrt(2)+sqrt(3)", Options{}, "3.14626436994197234232913506571557", "decimal", false, ""},
	{"sin(1)^2 + cos(1)^2", Options{}, "1", "decimal", false, ""},
	{"exp(ln(7))", Options{}, "7", "decimal", false, ""},
	{"ln(exp(3))", Options{}, "3", "decimal", false, ""},
	{"x = sqrt(2); x^2 + x", Options{}, "3.414213562373095048801688724209698", "decimal", false, ""},
	{"pi - 3.14159", Options{}, "0.000002653589793238462643383279502884197", "decimal", false, ""},
	{"max(pi, e, 3)", Options{}, "3.141592653589793238462643383279503", "decimal", false, ""},
	{"min(pi, e, 3)", Options{}, "2.718281828459045235360287471352662", "decimal", false, ""},
	{"abs(-pi)", Options{}, "3.141592653589793238462643383279503", "decimal", false, ""},
	{"pi % 1", Options{}, "0.1415926535897932384626433832795029", "decimal", false, ""},
	{"-pi % 1", Options{}, "-0.1415926535897932384626433832795029", "decimal", false, ""},
	{"mod(10, pi)", Options{}, "0.5752220392306202846120698501614913", "decimal", false, ""},
	{"sin(pi/3)", Options{}, "0.8660254037844386467637231707529362", "decimal", false, ""},
	{"cos(pi/5)", Options{}, "0.8090169943749474241022934171828191", "decimal", false, ""},
	{"tan(pi/3)", Options{}, "1.732050807568877293527446341505872", "decimal", false, ""},
	{"sin(2*pi/7)", Options{}, "0.7818314824680298087084445266740578", "decimal", false, ""},
	{"sin(100*pi + 1)", Options{}, "0.841470984807896506652502321630299", "decimal", false, ""},
	{"sin(45)", Options{Degrees: true}, "0.707106781186547524400844362104849", "decimal", false, ""},
	{"cos(10)", Options{Degrees: true}, "0.984807753012208059366743024589523", "decimal", false, ""},
	{"tan(89)", Options{Degrees: true}, "57.28996163075942468727814753711258", "decimal", false, ""},
	{"sin(-100)", Options{Degrees: true}, "-0.984807753012208059366743024589523", "decimal", false, ""},
	{"cos(1e6 + 0.5)", Options{Degrees: true}, "0.1822355254921474566025733714374099", "decimal", false, ""},
	{"sec(60.5)", Options{Degrees: true}, "2.030772044680156785286953657064888", "decimal", false, ""},
	{"asin(0.3)", Options{Degrees: true}, "17.45760312372209229024604579244494", "decimal", false, ""},
	{"acos(0.3)", Options{Degrees: true}, "72.54239687627790770975395420755506", "decimal", false, ""},
	{"atan(2)", Options{Degrees: true}, "63.43494882292201064842780627954671", "decimal", false, ""},
	{"atan2(2, 1)", Options{Degrees: true}, "63.43494882292201064842780627954671", "decimal", false, ""},
	{"atan2(-1, -2)", Options{Degrees: true}, "-153.4349488229220106484278062795467", "decimal", false, ""},
	{"sin(pi)", Options{Degrees: true}, "0.05480366514878953088774871353983325", "decimal", false, ""},
	{"pi", Options{Precision: 1}, "3", "decimal", false, ""},
	{"exp(50)", Options{Precision: 1}, "5e+21", "decimal", false, ""},
	{"2/3", Options{Precision: 1}, "0.7", "decimal", false, "2/3"},
	{"sqrt(2)/1e45", Options{Precision: 1}, "1e-45", "decimal", false, ""},
	{"pi", Options{Precision: 5}, "3.1416", "decimal", false, ""},
	{"exp(50)", Options{Precision: 5}, "5.1847e+21", "decimal", false, ""},
	{"2/3", Options{Precision: 5}, "0.66667", "decimal", false, "2/3"},
	{"sqrt(2)/1e45", Options{Precision: 5}, "1.4142e-45", "decimal", false, ""},
	{"pi", Options{Precision: 20}, "3.1415926535897932385", "decimal", false, ""},
	{"exp(50)", Options{Precision: 20}, "5.1847055285870724641e+21", "decimal", false, ""},
	{"2/3", Options{Precision: 20}, "0.66666666666666666667", "decimal", false, "2/3"},
	{"sqrt(2)/1e45", Options{Precision: 20}, "1.4142135623730950488e-45", "decimal", false, ""},
	{"1e-50 + pi - pi", Options{}, "1e-50", "decimal", false, ""},
	{"(pi + 1e-40) - pi", Options{}, "0.0000000000000000000000000000000000000001", "decimal", false, ""},
	{"sqrt(2)^2", Options{}, "2", "decimal", false, ""},
	{"sqrt(2)^2 - 2", Options{}, "0", "decimal", false, ""},
	{"floor(sqrt(2)^2)", Options{}, "2", "decimal", false, ""},
	{"trunc(2^(3 - 1e-300))", Options{}, "8", "decimal", false, ""},
	{"factorial(sqrt(3)^2)", Options{}, "6", "decimal", false, ""},
	{"-ln(1 - 1e-5^(45 + e))", Options{}, "2.562069212365998381807258124105818e-239", "decimal", false, ""},
	{"sin(sqrt(pi)^2)", Options{}, "0", "decimal", false, ""},
	{"sin(3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196)", Options{}, "4.428810975665933446128475648233787e-201", "decimal", false, ""},
	{"exp(2302585)", Options{}, "9.11198925846314776602950843026599e+999999", "decimal", false, ""},
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	for _, group := range [][]evalCase{exactCases, inexactCases} {
		for _, c := range group {
			checkCase(t, c)
		}
	}
}

// checkCase evaluates c and compares every reported field.
func checkCase(t *testing.T, c evalCase) {
	t.Helper()
	res, err := Evaluate(context.Background(), c.src, c.opts)
	if err != nil {
		t.Errorf("Evaluate(%q, %+v): unexpected error %v", c.src, c.opts, err)
		return
	}
	if res.Value != c.value || res.Kind != c.kind || res.Exact != c.exact || res.Fraction != c.fraction {
		t.Errorf("Evaluate(%q, %+v) = {%s %s exact=%v fraction=%q}, want {%s %s exact=%v fraction=%q}",
			c.src, c.opts, res.Value, res.Kind, res.Exact, res.Fraction, c.value, c.kind, c.exact, c.fraction)
	}
}

// errorCase is one failing evaluation.
type errorCase struct {
	src  string
	opts Options
	kind string
	pos  int
	msg  string // substring of the message
}

var errorCases = []errorCase{
	// Syntax.
	{"2 + * 3", Options{}, KindSyntax, 5, `unexpected "*" at position 5`},
	{"2 +", Options{}, KindSyntax, 4, "unexpected end of input"},
	{"", Options{}, KindSyntax, 0, "empty expression"},
	{" ; \n ", Options{}, KindSyntax, 0, "empty expression"},
	{"(2 + 3", Options{}, KindSyntax, 1, `unclosed "("`},
	{"2 + 3)", Options{}, KindSyntax, 6, `unmatched ")"`},
	{"()", Options{}, KindSyntax, 2, "empty parentheses"},
	{"2pi", Options{}, KindSyntax, 2, "implicit multiplication is not supported; write 2*pi"},
	{"2 (3 + 4)", Options{}, KindSyntax, 3, "write 2*(...)"},
	{"(1)(2)", Options{}, KindSyntax, 4, "implicit multiplication"},
	{"2 x", Options{}, KindSyntax, 3, "implicit multiplication"},
	{"1,000", Options{}, KindSyntax, 2, "thousands separators"},
	{"1_000", Options{}, KindSyntax, 1, "write 1000"},
	{"1.2.3", Options{}, KindSyntax, 1, "malformed number"},
	{"2 $ 3", Options{}, KindSyntax, 3, `unexpected character "$"`},
	{"√2", Options{}, KindSyntax, 1, "sqrt(x)"},
	{"1 < 2 < 3", Options{}, KindSyntax, 7, "cannot be chained"},
	{"5 = x", Options{}, KindSyntax, 3, "use == to compare"},
	{"pi = 3", Options{}, KindSyntax, 1, `cannot assign to "pi"`},
	{"sqrt = 3", Options{}, KindSyntax, 1, "built-in function"},
	{"of = 3", Options{}, KindSyntax, 1, "reserved word"},
	{"sin", Options{}, KindSyntax, 1, "call it with parentheses"},
	{"pi(2)", Options{}, KindSyntax, 1, "is a constant, not a function"},
	{"x = 2; x(3)", Options{}, KindSyntax, 8, "is a variable, not a function"},
	{"of 3", Options{}, KindSyntax, 1, `unexpected "of"`},
	{"sqrt(2,)", Options{}, KindSyntax, 8, `unexpected ")"`},
	{"1 +\n2", Options{}, KindSyntax, 4, "unexpected line break"},

	// Unknown names and arity.
	{"sqr(4)", Options{}, KindUnknownName, 1, `unknown function "sqr" at position 1; did you mean "sqrt"?`},
	{"Sqrt(4)", Options{}, KindUnknownName, 1, `did you mean "sqrt"?`},
	{"arcsin(1)", Options{}, KindUnknownName, 1, `did you mean "asin"?`},
	{"frobnicate(1)", Options{}, KindUnknownName, 1, "available functions: "},
	{"x + 1", Options{}, KindUnknownName, 1, `unknown name "x" at position 1; assign it first`},
	{"PI", Options{}, KindUnknownName, 1, `did you mean "pi"?`},
	{"rate = 5; rat * 2", Options{}, KindUnknownName, 11, `did you mean "rate"?`},
	{"x = x + 1", Options{}, KindUnknownName, 5, `unknown name "x"`},
	{"sqrt(1, 2)", Options{}, KindArity, 1, "sqrt expects 1 argument but got 2 at position 1; usage: sqrt(x)"},
	{"sqrt()", Options{}, KindArity, 1, "sqrt expects 1 argument but got 0"},
	{"round(1, 2, 3)", Options{}, KindArity, 1, "expects 1 or 2 arguments"},
	{"gcd(4)", Options{}, KindArity, 1, "expects at least 2 arguments"},
	{"atan2(1)", Options{}, KindArity, 1, "atan2 expects 2 arguments"},
	{"max()", Options{}, KindArity, 1, "at least 1 arguments"},

	// Domain.
	{"sqrt(-1)", Options{}, KindDomain, 1, "not a real number"},
	{"ln(0)", Options{}, KindDomain, 1, "ln of zero is undefined"},
	{"log(-2)", Options{}, KindDomain, 1, "negative number -2"},
	{"log(10, 1)", Options{}, KindDomain, 1, "invalid logarithm base 1"},
	{"log(10, 0)", Options{}, KindDomain, 1, "invalid logarithm base"},
	{"asin(2)", Options{}, KindDomain, 1, "asin(2) is undefined"},
	{"acos(-1.5)", Options{}, KindDomain, 1, "acos(-1.5) is undefined"},
	{"acosh(0.5)", Options{}, KindDomain, 1, "acosh(0.5) is undefined"},
	{"atanh(1)", Options{}, KindDomain, 1, "atanh(1) is undefined"},
	{"atanh(-2)", Options{}, KindDomain, 1, "atanh(-2) is undefined"},
	{"tan(90)", deg, KindDomain, 1, "tan(90) is undefined"},
	{"tan(-270)", deg, KindDomain, 1, "is undefined"},
	{"tan(pi/2)", Options{}, KindDomain, 1, "is undefined"},
	{"sec(pi/2)", Options{}, KindDomain, 1, "is undefined"},
	{"cot(0)", Options{}, KindDomain, 1, "cot(0) is undefined"},
	{"csc(180)", deg, KindDomain, 1, "csc(180) is undefined"},
	{"atan2(0, 0)", Options{}, KindDomain, 1, "atan2(0, 0) is undefined"},
	{"factorial(-1)", Options{}, KindDomain, 1, "non-negative integer"},
	{"(-3)!", Options{}, KindDomain, 5, "non-negative integer"},
	{"2.5!", Options{}, KindDomain, 4, "needs an integer, got 2.5"},
	{"factorial(sqrt(9.0000000000000000000000000000000000000000000000000001)^2)", Options{}, KindDomain, 1, "needs an integer"},
	{"0^-1", Options{}, KindDomain, 2, "0 cannot be raised to a negative power"},
	{"0^(-1/2)", Options{}, KindDomain, 2, "negative power"},
	{"(-8)^0.5", Options{}, KindDomain, 5, "(-8)^0.5 is not a real number"},
	{"(-2)^pi", Options{}, KindDomain, 5, "is not a real number"},
	{"gcd(2.5, 5)", Options{}, KindDomain, 1, "gcd needs an integer, got 2.5"},
	{"gcd(pi, 5)", Options{}, KindDomain, 1, "gcd needs an integer"},
	{"ncr(3, 5)", Options{}, KindDomain, 1, "k <= n"},
	{"ncr(-1, 2)", Options{}, KindDomain, 1, "non-negative integers"},
	{"npr(5, -1)", Options{}, KindDomain, 1, "non-negative integers"},
	{"round(2.5, 0.5)", Options{}, KindDomain, 1, "needs an integer"},
	{"round(1, 100000)", Options{}, KindDomain, 1, "must be between"},
	{"(1 < 2) + 1", Options{}, KindDomain, 4, "the boolean true cannot be used as a number"},
	{"-(1 < 2)", Options{}, KindDomain, 5, "boolean"},
	{"(1 < 2) < 3", Options{}, KindDomain, 9, "cannot apply"},

	// Division by zero.
	{"1/0", Options{}, KindDivisionByZero, 2, "division by zero at position 2"},
	{"1/(2-2)", Options{}, KindDivisionByZero, 2, "division by zero"},
	{"5 % 0", Options{}, KindDivisionByZero, 3, "modulo by zero"},
	{"mod(5, 0)", Options{}, KindDivisionByZero, 1, "modulo by zero"},
	{"1/(sqrt(2)^2 - 2)", Options{}, KindDivisionByZero, 2, "zero to within the working precision"},
	{"1/sin(pi)", Options{}, KindDivisionByZero, 2, "division by zero"},

	// Size limits.
	{"9^9^9^9", Options{}, KindTooLarge, 4, "would have about 369693100 digits"},
	{"100000!", Options{}, KindTooLarge, 7, "about 456574 digits"},
	{"factorial(10^30)", Options{}, KindTooLarge, 1, "factorial"},
	{"6000!", Options{}, KindTooLarge, 5, "20000-digit limit"},
	{"2^66439", Options{}, KindTooLarge, 2, "more than 20000 digits"},
	{"1e999999", Options{}, KindTooLarge, 1, `the number "1e999999" is too large`},
	{"1e99999999999", Options{}, KindTooLarge, 1, "too large"},
	{"1e-20000", Options{}, KindTooLarge, 1, "too small"},
	{"ncr(100000, 50000)", Options{}, KindTooLarge, 1, "digits"},
	{"5000! * 5000!", Options{}, KindTooLarge, 7, "more than 20000 digits"},
	{"lcm(5000!, 5000!+1)", Options{}, KindTooLarge, 1, "more than 20000 digits"},
	{"exp(10^7)", Options{}, KindTooLarge, 1, "too large"},
	{"exp(-10^7)", Options{}, KindTooLarge, 1, "too close to zero"},
	{"sinh(10^7)", Options{}, KindTooLarge, 1, "too large"},
	{"10^(10^7 + 0.5)", Options{}, KindTooLarge, 3, "too large"},
	{"pi^(10^7)", Options{}, KindTooLarge, 3, "too large"},
	{"e^(-10^7)", Options{}, KindTooLarge, 2, "too close to zero"},

	// Input limits.
	{strings.Repeat("(", 65) + "1" + strings.Repeat(")", 65), Options{}, KindLimit, 65, "nested too deeply"},
	{strings.Repeat("-", 100) + "1", Options{}, KindLimit, 65, "nested too deeply"},
	{strings.Repeat("2^", 70) + "2", Options{}, KindLimit, 0, "nested too deeply"},
	{strings.Repeat("1+", 1500) + "1", Options{}, KindLimit, 0, "expression is too long"},
	{strings.Repeat("1;", 101), Options{}, KindLimit, 201, "too many statements"},
	{strings.Repeat("1+", 2100) + "1", Options{}, KindLimit, 0, "4096-byte limit"},
	{"1", Options{Precision: -1}, KindLimit, 0, "precision -1 is out of range"},
	{"1", Options{Precision: 1001}, KindLimit, 0, "precision 1001 is out of range"},
}

func TestEvaluateErrors(t *testing.T) {
	t.Parallel()
	for _, c := range errorCases {
		_, err := Evaluate(context.Background(), c.src, c.opts)
		var ee *Error
		if !errors.As(err, &ee) {
			t.Errorf("Evaluate(%.40q): error %v is not an *Error", c.src, err)
			continue
		}
		if ee.Kind != c.kind || (c.pos != 0 && ee.Pos != c.pos) || !strings.Contains(ee.Msg, c.msg) {
			t.Errorf("Evaluate(%.40q) = %s at %d: %q; want %s at %d containing %q",
				c.src, ee.Kind, ee.Pos, ee.Msg, c.kind, c.pos, c.msg)
		}
		if ee.Error() != ee.Msg {
			t.Errorf("Error() = %q, want the message %q", ee.Error(), ee.Msg)
		}
	}
}

func TestResultFields(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	res, err := Evaluate(ctx, "x = 1/4; y = x * 2; flag = y > x; z = sqrt(2)", Options{Precision: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"x": "0.25", "y": "0.5", "flag": "true", "z": "1.414213562"}
	if len(res.Variables) != len(want) {
		t.Fatalf("Variables = %v, want %v", res.Variables, want)
	}
	for k, v := range want {
		if res.Variables[k] != v {
			t.Errorf("Variables[%q] = %q, want %q", k, res.Variables[k], v)
		}
	}
	if res.Float != 1.4142135623730951 || res.FloatOverflow {
		t.Errorf("Float = %v overflow=%v, want 1.4142135623730951", res.Float, res.FloatOverflow)
	}

	res, err = Evaluate(ctx, "2 + 2", Options{})
	if err != nil || res.Variables != nil || res.Float != 4 {
		t.Errorf("2 + 2: %+v, %v; want Float 4 and nil Variables", res, err)
	}
	res, err = Evaluate(ctx, "10^400", Options{})
	if err != nil || res.Float != 0 || !res.FloatOverflow || !res.Exact {
		t.Errorf("10^400: %+v, %v; want Float 0 with FloatOverflow", res, err)
	}
	res, err = Evaluate(ctx, "-exp(1000)", Options{})
	if err != nil || res.Float != 0 || !res.FloatOverflow {
		t.Errorf("-exp(1000): %+v, %v; want FloatOverflow", res, err)
	}
	res, err = Evaluate(ctx, "1 < 2", Options{})
	if err != nil || res.Float != 0 || res.FloatOverflow || res.Kind != "boolean" {
		t.Errorf("1 < 2: %+v, %v", res, err)
	}
	res, err = Evaluate(ctx, "1/3", Options{})
	if err != nil || res.Float != 1.0/3 {
		t.Errorf("1/3: Float = %v, want %v", res.Float, 1.0/3)
	}
}

func TestExactLargeValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	res, err := Evaluate(ctx, "5000!", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 5000! has 16326 digits and 1249 trailing zeros; it is shown exactly in scientific notation.
	mant, exp, ok := strings.Cut(res.Value, "e+")
	if !ok || exp != "16325" || !res.Exact || res.Kind != "integer" ||
		len(strings.ReplaceAll(mant, ".", "")) != 16326-1249 || !strings.HasPrefix(mant, "4.228577926605543") {
		t.Errorf("5000! = %.60s… (len %d) exact=%v kind=%s", res.Value, len(res.Value), res.Exact, res.Kind)
	}
	res, err = Evaluate(ctx, "2^66438", Options{})
	if err != nil || !res.Exact || !strings.HasSuffix(res.Value, "e+19999") {
		t.Errorf("2^66438 = %.40s…%s, %v", res.Value, res.Value[max(0, len(res.Value)-10):], err)
	}
	res, err = Evaluate(ctx, "3^-40000", Options{})
	if err != nil || res.Exact || !strings.HasPrefix(res.Fraction, "1/708253593171918440402570201814114537") ||
		res.Value != "1.411923652263440459151145397143134e-19085" {
		t.Errorf("3^-40000 = %s (fraction %.40s…), %v", res.Value, res.Fraction, err)
	}
}

func TestLimitsAreFast(t *testing.T) {
	for _, src := range []string{"9^9^9^9", "100000!", "10^10^10", "ncr(10^100, 10^50)", "npr(10^6, 10^5)", "(1/3)^(10^9)", "1e999999"} {
		start := time.Now()
		_, err := Evaluate(context.Background(), src, Options{})
		elapsed := time.Since(start)
		var ee *Error
		if !errors.As(err, &ee) || ee.Kind != KindTooLarge {
			t.Errorf("Evaluate(%q) = %v, want too_large", src, err)
		}
		if elapsed > 50*time.Millisecond {
			t.Errorf("Evaluate(%q) took %v, want well under 50ms", src, elapsed)
		}
	}
}

func TestHugeArgumentsStayBounded(t *testing.T) {
	// These need a lot of internal precision; they must finish or fail cleanly and quickly.
	for _, src := range []string{"sin(5000!)", "cos(2^66000)", "tan(10^19999)", "sin(1/3^40000)", "exp(-1/3^40000)"} {
		start := time.Now()
		_, err := Evaluate(context.Background(), src, Options{})
		if elapsed := time.Since(start); elapsed > 3*time.Second {
			t.Errorf("Evaluate(%q) took %v", src, elapsed)
		}
		var ee *Error
		if err != nil && !errors.As(err, &ee) {
			t.Errorf("Evaluate(%q) error %v is not an *Error", src, err)
		}
	}
}

func TestContextCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Evaluate(ctx, "1 + 1", Options{})
	var ee *Error
	if !errors.As(err, &ee) || ee.Kind != KindLimit || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want a limit *Error wrapping context.Canceled", err)
	}

	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = Evaluate(ctx, "sqrt(2)", Options{})
	if !errors.As(err, &ee) || ee.Kind != KindLimit || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(ee.Msg, "took too long") {
		t.Errorf("expired: got %v, want a limit *Error wrapping context.DeadlineExceeded", err)
	}

	// A deadline that expires mid-computation stops a long evaluation.
	long := strings.Repeat("sin(10^19000 + 1/7) + exp(1/3) + ln(7) + ", 40) + "1"
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = Evaluate(ctx, long, Options{Precision: 1000})
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("evaluation ran %v past a 20ms deadline", elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("long evaluation: got %v, want context.DeadlineExceeded", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	done := make(chan error)
	for i := range 16 {
		go func() {
			src, opts, want := "4*atan(1) - pi + sin(pi/7)^2 + cos(pi/7)^2", Options{Precision: 50 + 60*i}, "1"
			if i%2 == 1 {
				src, opts, want = "sin(30) + cos(60) - tan(45) + asin(1)/90 + sin(asin(0.5))", Options{Degrees: true}, "1.5"
			}
			res, err := Evaluate(context.Background(), src, opts)
			if err == nil && res.Value != want {
				err = errors.New(src + ": got " + res.Value)
			}
			done <- err
		}()
	}
	for range 16 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// panicContext is a context whose Err panics, standing in for any internal failure.
type panicContext struct{ context.Context }

func (panicContext) Err() error { panic("boom") }

func TestPanicsAreRecovered(t *testing.T) {
	t.Parallel()
	_, err := Evaluate(panicContext{context.Background()}, "sqrt(2)", Options{})
	var ee *Error
	if !errors.As(err, &ee) || ee.Kind != KindLimit || ee.Msg != "internal error evaluating expression" {
		t.Errorf("got %v, want the internal-error *Error", err)
	}
}
