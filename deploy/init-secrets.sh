#!/bin/sh
# init-secrets.sh creates what the compose stacks need and git must never
# hold: the .env file beside docker-compose.yml, from deploy/env.example with
# a random database password, and the files of deploy/secrets/ (see its
# README): empty LLM, webhook and Temporal API keys, a random codec key, a
# random Grafana password, a random token for planmode serve, and a random S3 key pair for the blob store with
# the SeaweedFS config that names it. It never overwrites anything, so it is
# safe to run again; it only sets the modes the containers need.
#
#   deploy/init-secrets.sh
#   PLANMODE_ENV_FILE=deploy/.env deploy/init-secrets.sh   # for docker-compose.hosted.yml
set -eu

here=$(cd "$(dirname "$0")" && pwd)
env_file=${PLANMODE_ENV_FILE:-$here/../.env}
secrets=${PLANMODE_SECRETS_DIR:-$here/secrets}
umask 077

# random prints n random letters and digits: safe in .env without quoting.
random() {
	head -c 96 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c "$1"
}

if [ -e "$env_file" ]; then
	if ! grep -q '^POSTGRES_PASSWORD=..*' "$env_file"; then
		echo "warning: $env_file sets no POSTGRES_PASSWORD; compose will refuse to start" >&2
	fi
else
	sed "s/^POSTGRES_PASSWORD=.*/POSTGRES_PASSWORD=$(random 32)/" "$here/env.example" >"$env_file"
	echo "wrote $env_file with a random POSTGRES_PASSWORD"
fi

mkdir -p "$secrets"
chmod 700 "$secrets"
for name in llm_api_key webhook_secret temporal_api_key; do
	[ -e "$secrets/$name" ] || : >"$secrets/$name"
done
if [ ! -e "$secrets/codec_key" ]; then
	# keyID:base64 of 32 random bytes; the ID names the key in every
	# payload it encrypts, so a dated one tells keys apart after rotation.
	printf 'k%s:%s\n' "$(date +%Y%m%d)" "$(head -c 32 /dev/urandom | base64)" >"$secrets/codec_key"
	echo "wrote a new codec key to $secrets/codec_key: keep a copy, history encrypted with it is unreadable without it"
fi
[ -e "$secrets/grafana_admin_password" ] || random 24 >"$secrets/grafana_admin_password"
# One token for planmode serve, for the operator; add a line per person or
# service (TOKEN IDENTITY [TENANT,...]), and remove one to revoke it.
if [ ! -e "$secrets/serve_tokens" ]; then
	printf '# TOKEN IDENTITY [TENANT,...] (docs/serve.md)\n%s operator\n' "$(random 40)" >"$secrets/serve_tokens"
	echo "wrote a serve token for \"operator\" to $secrets/serve_tokens"
fi

# The workers' key pair for the blob store, and SeaweedFS's S3 config made
# from it: one identity that may read, write and list the planmode bucket
# only (the store-bucket job creates it through the filer). The config is
# derived from the key files, so delete it to pick up new keys.
[ -e "$secrets/store_access_key" ] || random 20 >"$secrets/store_access_key"
[ -e "$secrets/store_secret_key" ] || random 40 >"$secrets/store_secret_key"
if [ ! -e "$secrets/store_s3_config" ]; then
	cat >"$secrets/store_s3_config" <<EOF
{
  "identities": [
    {
      "name": "planmode",
      "credentials": [{"accessKey": "$(cat "$secrets/store_access_key")", "secretKey": "$(cat "$secrets/store_secret_key")"}],
      "actions": ["Read:planmode", "Write:planmode", "List:planmode"]
    }
  ]
}
EOF
fi

# The containers run as their own users (planmode 10001, Grafana 472,
# SeaweedFS's) and read these files through bind mounts, which keep host
# modes; the 0700 folder is what keeps other users of this host out.
for name in llm_api_key webhook_secret temporal_api_key codec_key grafana_admin_password \
	store_access_key store_secret_key store_s3_config serve_tokens; do
	chmod 644 "$secrets/$name"
done
echo "secrets in $secrets: put the LLM API key in llm_api_key (printf '%s' \"\$KEY\" > llm_api_key)"
