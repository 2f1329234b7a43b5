#include "harness/util/isotime.h"

#include <time.h>

void iso8601_now(struct strbuf *out)
{
	struct timespec now;
	struct tm tm;
	char text[32];

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strbuf_addstr(out, text);
}
