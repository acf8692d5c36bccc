#!/usr/bin/env bash
# The system packages adm-push builds, tests and cross-checks with, on Debian 12
# (openssl serves a self-signed TLS peer in the transport tests; strace proves which hosts the
# commands connect to; groff and mandoc check the man pages, zsh and fish the completion scripts;
# libstdc++'s static archive goes into the release commands; systemd's systemd-analyze verifies
# the user units; dpkg-dev, binutils, lintian and man-db build, check and install the Debian
# package in scripts/check-deb; libsystemd-dev has sd-bus's header, and the desktop tests run a
# real desktop of their own: dbus-daemon, Xvfb and dunst, with xdotool to click a bubble,
# ImageMagick's import for screenshots, fonts to draw text and emoji with, the SVG loader for the icon;
# desktop-file-validate checks the .desktop file, and ImageMagick draws the icon's PNG; notify-send
# (libnotify-bin) is the peer adm-bench's desktop figure is measured next to;
# microsocks is the real SOCKS5 server every networked command, watch and its socket included,
# is run through under strace by the proxy tests, which fail in CI rather than skip without it;
# libssl-dev has the OpenSSL headers the keyring's encrypted session is built against, and the
# keyring tests talk to a real gnome-keyring-daemon on a private bus, checked both ways with
# libsecret-tools' secret-tool, and against scripts/fake-secret-service, a misbehaving Secret
# Service of their own written with python3-dbus and python3-gi; gettext's msgfmt compiles the translations of po/, and the
# tests read them under the locales generated below, as a user of each language has them).
# The Swift 6 toolchain itself is assumed to be installed already.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
$sudo apt-get install -y -qq \
    libsodium-dev libcurl4-openssl-dev libsqlite3-dev libmicrohttpd-dev libunistring-dev libstdc++-12-dev libsystemd-dev libssl-dev pkg-config \
    python3 python3-nacl openssl strace microsocks groff-base mandoc zsh fish \
    systemd dpkg-dev binutils lintian man-db \
    dbus-daemon dbus-bin xvfb dunst librsvg2-common xdotool imagemagick libnotify-bin fonts-dejavu-core fonts-noto-color-emoji desktop-file-utils \
    gnome-keyring libsecret-tools python3-dbus python3-gi gettext locales >/dev/null
# The locales the translations are tested under (localedef is idempotent; an existing one is
# written again in a second).
for locale in ru_RU de_DE fr_FR it_IT ar_EG; do
    locale -a 2>/dev/null | grep -qx "${locale}.utf8" || $sudo localedef -i "$locale" -f UTF-8 "$locale.UTF-8"
done
