# pyvenv.sh, sourced by the scripts that run a pinned Python tool (moto, the
# SAM CLI, schemathesis): pyvenv_install VENV REQUIREMENT installs REQUIREMENT
# (e.g. "moto[server]==5.2.5") into the cached venv VENV once.
pyvenv_install() {
	local venv=$1 req=$2
	# A marker per requirement keeps a half-finished install from counting
	# as done, and a changed pin from counting as installed.
	local marker="$venv/.installed-${req//[^A-Za-z0-9.=_-]/_}"
	[[ -f "$marker" ]] && return 0
	mkdir -p "$(dirname "$venv")"
	python3 -m venv "$venv"
	"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$req" >&2
	touch "$marker"
}
