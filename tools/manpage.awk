# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# build/ratewall.8 from `ratewall completion --man` (the options, from the
# options' table) and dist/ratewall.8 (the prose):
#   awk -f tools/manpage.awk OPTIONS dist/ratewall.8 > build/ratewall.8
# The options go where the page's ".\" @OPTIONS@" comment is. The page's
# ignored block after ".\" @DETAILS@" holds run options' own prose, each after
# ".\" @DETAIL@ NAME": it replaces the table's help line of that option. Prose
# for an option the table lacks, or a page without the marker, is an error:
# the page cannot name an option the binary does not take.
FNR == NR { opts[++nopts] = $0; next }
$0 == ".\\\" @DETAILS@" { block = 1; next }
block == 1 && $0 == ".ig" { block = 2; next }
block == 2 && $0 == ".." { block = 0; next }
block == 2 && $1 == ".\\\"" && $2 == "@DETAIL@" { name = $3; detail[name] = ""; next }
block == 2 { detail[name] = detail[name] $0 "\n"; next }
{ page[++npage] = $0 }
END {
	for (i = 1; i <= npage; i++) {
		if (index(page[i], ".\\\" @OPTIONS@") != 1) {
			print page[i]
			continue
		}
		marked++
		for (j = 1; j <= nopts; j++) {
			split(opts[j], w, " ")
			if (w[1] != ".\\\"" || w[2] != "@DETAIL@") {
				print opts[j]
				continue
			}
			if (w[3] in detail) {
				printf "%s", detail[w[3]]
				used[w[3]] = 1
				j++ # the table's help line
			}
		}
	}
	if (marked != 1) {
		print "manpage.awk: the page has " marked + 0 " @OPTIONS@ markers, not one" > "/dev/stderr"
		exit 1
	}
	for (n in detail)
		if (!(n in used)) {
			print "manpage.awk: prose for --" n ", which run does not take" > "/dev/stderr"
			bad = 1
		}
	exit bad
}
