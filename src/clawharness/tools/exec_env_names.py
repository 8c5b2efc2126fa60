"""Environment variables a model-written command may not set in allowlist mode.

A variable in these lists changes what a program loads or runs rather than what it
does with its input: the dynamic loader (`LD_PRELOAD`, `DYLD_INSERT_LIBRARIES`), an
interpreter's start-up (`PYTHONPATH`, `NODE_OPTIONS`, `PERL5LIB`, `BASH_ENV`), the
command search path (`PATH`), word splitting (`IFS`), or a helper program a tool
starts on its own (`GIT_SSH_COMMAND`, `PAGER`, `EDITOR`). With one of them set, an
allowlisted `ls` is no longer the `ls` the operator allowed.

The names follow the original's host environment policy (its blocked keys, blocked
override keys and prefixes), plus the variables through which the shell and the programs
the exec gate has rules for take options or start-up commands (`TAR_OPTIONS`,
`LESSOPEN`, `VIMINIT`, `RSYNC_RSH`, every `GIT_*` and `BASH_*`). Names are compared
upper-cased, so `ld_preload=` is refused too (fail closed). Other programs read other
variables: allowlisting a program trusts what its environment may say.
"""

from __future__ import annotations

from typing import Final

__all__ = ["is_inherited_startup_variable", "is_loader_or_interpreter_variable"]

_NAMES: Final = frozenset({
    # search path, word splitting, shell start-up
    "PATH", "IFS", "CDPATH", "ENV", "BASH_ENV", "SHELL", "SHELLOPTS", "BASHOPTS", "PS4",
    "PROMPT_COMMAND", "HISTFILE", "ZDOTDIR", "HOME", "XDG_CONFIG_HOME",
    # C library loading
    "GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH", "NLSPATH",
    # interpreters and runtimes
    "NODE_OPTIONS", "NODE_PATH", "NODE_EXTRA_CA_CERTS", "NODE_TLS_REJECT_UNAUTHORIZED",
    "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONBREAKPOINT", "PYTHONWARNINGS",
    "PYTHONUSERBASE", "PYTHONINSPECT", "VIRTUAL_ENV",
    "PERL5LIB", "PERLLIB", "PERL5OPT", "PERL5DB", "PERL5DBCMD",
    "RUBYLIB", "RUBYOPT", "GEM_HOME", "GEM_PATH", "BUNDLE_GEMFILE",
    "LUA_PATH", "LUA_CPATH", "LUA_INIT", "TCLLIBPATH",
    "PHPRC", "PHP_INI_SCAN_DIR", "CLASSPATH", "JAVA_OPTS", "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "DOTNET_STARTUP_HOOKS", "DOTNET_ADDITIONAL_DEPS",
    "CORECLR_PROFILER_PATH", "DENO_DIR", "BUN_CONFIG_REGISTRY", "YARN_RC_FILENAME",
    # build tools that run a configured compiler or wrapper
    "CC", "CXX", "CARGO_HOME", "CARGO_BUILD_RUSTC", "CARGO_BUILD_RUSTC_WRAPPER",
    "RUSTC_WRAPPER", "RUSTFLAGS", "CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER", "MAKEFLAGS",
    "MFLAGS", "MAVEN_OPTS", "GRADLE_OPTS", "GRADLE_USER_HOME", "SBT_OPTS", "ANT_OPTS",
    "CGO_CFLAGS", "CGO_LDFLAGS", "GOFLAGS", "GOENV", "GOPATH", "GOPROXY", "GONOSUMCHECK",
    "GONOSUMDB", "GONOPROXY", "GOPRIVATE", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH",
    "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH", "COMPOSER_HOME", "HELM_HOME",
    # helper programs a tool starts by itself
    "EDITOR", "VISUAL", "FCEDIT", "SUDO_EDITOR", "PAGER", "MANPAGER", "BROWSER",
    "LESSOPEN", "LESSCLOSE", "SSH_ASKPASS",
    "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_EXTERNAL_DIFF", "GIT_SSH",
    "GIT_SSH_COMMAND", "GIT_PROXY_COMMAND", "GIT_ASKPASS", "GIT_EXEC_PATH",
    "GIT_TEMPLATE_DIR", "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
    "GIT_SSL_NO_VERIFY", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "HGRCPATH",
    # where credentials, certificates and proxies come from
    "OPENSSL_CONF", "OPENSSL_ENGINES", "SSLKEYLOGFILE", "SSL_CERT_FILE", "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "CURL_HOME", "WGETRC", "HTTP_PROXY",
    "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "KUBECONFIG", "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AZURE_AUTH_LOCATION", "DOCKER_HOST", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH",
    "DOCKER_CONTEXT", "PIP_INDEX_URL", "PIP_PYPI_URL", "PIP_EXTRA_INDEX_URL",
    "PIP_CONFIG_FILE", "PIP_FIND_LINKS", "PIP_TRUSTED_HOST", "UV_INDEX", "UV_INDEX_URL",
    "UV_PYTHON", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX",

    # the shell itself: tracing, globbing, option parsing of every GNU program
    "PS1", "PS2", "PS3", "POSIXLY_CORRECT", "GLOBIGNORE", "EXECIGNORE", "FUNCNEST",
    "INPUTRC", "OLDPWD",
    # options and start-up files programs read from the environment
    "TAR_OPTIONS", "MANOPT", "MANROFFOPT", "ZIPOPT", "UNZIP", "UNZIPOPT", "AWKPATH",
    "AWKLIBPATH", "EXINIT", "MYVIMRC", "MYGVIMRC", "MAKEFILES", "RIPGREP_CONFIG_PATH",
    "RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH", "RCMDSH", "GROFF_COMMAND_PREFIX",
    "SYSTEMD_PAGER", "SYSTEMD_EDITOR", "DIFF_OPTIONS",
})

#: whole families: git and the shell read dozens (GIT_CONFIG_PARAMETERS, GIT_TRACE=file,
#: BASH_XTRACEFD, BASH_LOADABLES_PATH); less, vim and ssh read start-up commands
_PREFIXES: Final = (
    "LD_", "DYLD_", "BASH_", "GIT_", "NPM_CONFIG_", "CARGO_REGISTRIES_", "LUA_INIT_",
    "LESS", "VIM", "GVIM", "SSH_", "XDG_", "PIP_", "PROMPT_", "PAGER", "EDITOR",
)


def is_loader_or_interpreter_variable(name: str) -> bool:
    """True when setting `name` could change what a command loads or runs."""
    upper = name.strip().upper()
    return upper in _NAMES or upper.startswith(_PREFIXES)


#: what a command started unsandboxed may not inherit from the host's own environment:
#: the subset of the names above that make bash or the loader run code before (or
#: instead of) the command the gate judged. An exported function (`BASH_FUNC_ls%%`)
#: replaces `ls`, `BASH_ENV`/`ENV` source a file, `PROMPT_COMMAND`/`PS4` with
#: `SHELLOPTS=xtrace` run commands, `IFS`/`CDPATH`/`GLOBIGNORE` change what words and
#: paths mean, `LD_PRELOAD` loads a library into every program. Search paths the operator
#: relies on (`PATH`, `HOME`, `PYTHONPATH`, proxies) pass: the host's environment is the
#: operator's, only the hooks that turn an allowed command into another one are dropped.
_INHERITED_STARTUP: Final = frozenset({
    "ENV", "BASH_ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS1", "PS2", "PS3", "PS4",
    "IFS", "CDPATH", "GLOBIGNORE", "EXECIGNORE", "FUNCNEST", "POSIXLY_CORRECT", "INPUTRC",
    "HISTFILE", "GCONV_PATH", "GLIBC_TUNABLES",
    "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONBREAKPOINT", "PERL5OPT", "PERL5DB",
    "PERL5DBCMD", "RUBYOPT", "NODE_OPTIONS", "LUA_INIT", "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "DOTNET_STARTUP_HOOKS", "CORECLR_PROFILER_PATH",
})
_INHERITED_STARTUP_PREFIXES: Final = ("BASH_", "LD_", "DYLD_", "PROMPT_", "LUA_INIT_")


def is_inherited_startup_variable(name: str) -> bool:
    """True when a host variable named `name` must not reach an unsandboxed `bash -c`:
    it would run or load code before the command (exported functions included)."""
    upper = name.strip().upper()
    return (upper in _INHERITED_STARTUP or upper.startswith(_INHERITED_STARTUP_PREFIXES)
            or "%%" in name)
