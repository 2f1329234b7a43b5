/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/median_interval.h"

#include <math.h>

void median_interval(const double *sorted, size_t n, double confidence,
		     double *low, double *high)
{
	double tail = 0, log_half_n = (double)n * log(0.5);
	size_t j = 0;
	int sign;

	/* j - 1 values or fewer below the median: P(Binomial(n, 1/2) <= j - 1),
	 * summed in logs so that a large n does not underflow 2^-n. lgamma_r:
	 * lgamma writes the global signgam, a race for threaded callers. */
	while (j + 1 <= n / 2) {
		double p = exp(lgamma_r((double)n + 1, &sign) -
			       lgamma_r((double)j + 1, &sign) -
			       lgamma_r((double)(n - j) + 1, &sign) +
			       log_half_n);

		if (2 * (tail + p) > 1 - confidence)
			break;
		tail += p;
		j++;
	}
	if (!j)
		j = 1;
	*low = sorted[j - 1];
	*high = sorted[n - j];
}
