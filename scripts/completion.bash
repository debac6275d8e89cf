# bash completion for smembench (installed as share/bash-completion/completions/smembench).
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
    -o | --output)
        COMPREPLY=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
        return 0 ;;
    --min-samples | --max-samples | --max-noise | --timeout | --seed)
        return 0 ;;
    esac
    [[ $cur == -* || -z $cur ]] &&
        COMPREPLY=($(compgen -W "$(_smembench_ask "$prog" options)" -- "$cur"))
    return 0
}
complete -F _smembench smembench
