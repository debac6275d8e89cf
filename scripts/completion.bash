# bash completion for smembench and the smembench-* commands (installed as
# share/bash-completion/completions/smembench, and under each command's name as a link to it).
# Every list is asked of the program being completed: options from --help, benchmarks, axes and
# sweeps from --list, models from --predict list. Nothing is copied here, so nothing can drift.

# _smembench_ask PROGRAM WHAT: one name a line; WHAT is options, benches, axes, sweeps or models
_smembench_ask()
{
    local prog=$1
    case $2 in
    options) "$prog" --help 2>/dev/null |
        sed -n 's/^ \{2,\}\(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z-]*\).*/\2/p' ;;
    models) "$prog" --predict list 2>/dev/null | awk '/^  [^ ]/ { print $1 }' ;;
    *) "$prog" --list 2>/dev/null | awk -v what="$2" '
        /^benchmarks:/ { section = "benches"; next }
        /^sweeps:/ { section = "sweeps"; next }
        /^[^ ]/ { section = "" }
        section == "benches" && what == "benches" && /^  [^ ]/ { print $1 }
        section == "benches" && what == "axes" && /^    --axis / { sub(/=.*/, "", $2); if (!seen[$2]++) print $2 }
        section == "sweeps" && what == "sweeps" && /^  [^ ]/ { print $1 }' ;;
    esac
}

# _smembench_list_reply CURRENT WORDS...: completes the last item of a comma-separated list
_smembench_list_reply()
{
    local cur=$1 head=
    shift
    [[ $cur == *,* ]] && head=${cur%,*},
    local IFS=$'\n'
    COMPREPLY=($(compgen -P "$head" -W "$*" -- "${cur##*,}"))
}

_smembench()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev= prog=${COMP_WORDS[0]}
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    # bash splits --opt=value at '=' (COMP_WORDBREAKS): find the option before it
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
        # the value of --axis NAME=: numbers, nothing to offer
        [[ $prev == -* ]] || return 0
    fi
    [[ $prog == \~/* ]] && prog=$HOME/${prog#\~/}
    [[ $prog == */* ]] || prog=$(type -P -- "$prog")
    COMPREPLY=()
    [[ -x $prog ]] || return 0

    case $prev in
    -s | --sweep)
        _smembench_list_reply "$cur" $(_smembench_ask "$prog" sweeps)
        return 0 ;;
    -b | --bench)
        COMPREPLY=($(compgen -W "$(_smembench_ask "$prog" benches)" -- "$cur"))
        return 0 ;;
    -a | --axis)
        [[ $cur == *=* ]] && return 0
        COMPREPLY=($(compgen -S = -W "$(_smembench_ask "$prog" axes)" -- "$cur"))
        compopt -o nospace 2>/dev/null
        return 0 ;;
    --predict)
        COMPREPLY=($(compgen -W "list $(_smembench_ask "$prog" models)" -- "$cur"))
        return 0 ;;
    -d | --device)
        COMPREPLY=($(compgen -W "all" -- "$cur"))
        return 0 ;;
    -o | --output | --kernel | --launch)
        COMPREPLY=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
        return 0 ;;
    --min-samples | --max-samples | --max-noise | --timeout | --seed | --watchdog)
        return 0 ;;
    esac
    [[ $cur == -* || -z $cur ]] &&
        COMPREPLY=($(compgen -W "$(_smembench_ask "$prog" options)" -- "$cur"))
    return 0
}
complete -F _smembench smembench

# _smembench_tool_help PROGRAM [OPTION]: the options an argparse --help lists (after its "options:"
# heading), one a line; with OPTION, the choices it lists for it ({a,b,c}), one a line
_smembench_tool_help()
{
    "$1" --help 2>/dev/null | awk -v opt="$2" '
        /^(options|optional arguments|positional arguments):$/ { on = 1; next }
        on && /^ +-/ {
            sub(/^ +/, ""); s = $0; sub(/  .*/, "", s)
            n = split(s, w, /, /)
            for (i = 1; i <= n; i++) {
                split(w[i], part, / /)
                if (opt == "" && part[1] ~ /^--?[A-Za-z]/) print part[1]
                if (opt != "" && part[1] == opt && part[2] ~ /^\{.*\}$/) {
                    gsub(/[{}]/, "", part[2]); gsub(/,/, "\n", part[2]); print part[2]
                }
            }
        }'
}

# the smembench-* commands: their options, the choices of an option that lists them, else files
_smembench_tool()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev= prog=${COMP_WORDS[0]}
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    [[ $cur == = ]] && cur=
    if [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    [[ $prog == \~/* ]] && prog=$HOME/${prog#\~/}
    [[ $prog == */* ]] || prog=$(type -P -- "$prog")
    COMPREPLY=()
    [[ -x $prog ]] || return 0
    local IFS=$'\n'
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_smembench_tool_help "$prog")" -- "$cur"))
        return 0
    fi
    if [[ $prev == -* ]]; then
        local choices
        choices=$(_smembench_tool_help "$prog" "$prev")
        if [[ -n $choices ]]; then
            COMPREPLY=($(compgen -W "$choices" -- "$cur"))
            return 0
        fi
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
    return 0
}
complete -F _smembench_tool smembench-ab smembench-compare smembench-export smembench-fleet smembench-plot \
    smembench-report smembench-trend smembench-catalog
