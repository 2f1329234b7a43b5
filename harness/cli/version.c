/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/version.h"

#include "harness/forge/http.h"

#include <cjson/cJSON.h>
#include <git2.h>
#include <openssl/crypto.h>

void version_print(FILE *out)
{
	int major = 0, minor = 0, revision = 0;
	/* loaded for this line: only the commands that talk to a server
	 * load libcurl otherwise */
	const char *curl_version = http_library_version();

	/* the versions of the libraries loaded now, not those built against:
	 * a package's Depends allow newer ones */
	git_libgit2_version(&major, &minor, &revision);
	fprintf(out, "benchgate %s\n", benchgate_version_full);
	fprintf(out, "commit %s\n", benchgate_commit);
	fprintf(out, "libgit2 %d.%d.%d, cJSON %s, libcurl %s, OpenSSL %s\n",
		major, minor, revision, cJSON_Version(),
		curl_version ? curl_version : "not found",
		OpenSSL_version(OPENSSL_VERSION_STRING));
	fprintf(out, "license %s <%s>\n", BENCHGATE_LICENSE,
		"https://www.apache.org/licenses/LICENSE-2.0");
	fprintf(out, "home %s\n", BENCHGATE_HOME);
}
