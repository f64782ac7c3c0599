"""Process the notebooks for the docs site, as `nbdev-proc-nbs` does, without its Quarto installer.

`nbdev-proc-nbs` installs Quarto when it is missing (with `sudo` and a download from the internet); CI machines
have neither, and the docs site itself is rendered by Quarto in `.github/workflows/deploy.yaml`. The steps below are
the rest of what it does: refresh the Quarto config, rebuild the doc links, write the sidebar, process every notebook.
Any warning the processing emits fails the run."""
import warnings
from nbdev.config import get_config
from nbdev.quarto import refresh_quarto_yml, nbdev_sidebar
from nbdev.doclinks import _build_modidx
from nbdev.serve import proc_nbs

if __name__=='__main__':
    warnings.simplefilter('error')
    cfg = get_config()
    refresh_quarto_yml()
    _build_modidx()
    nbdev_sidebar.__wrapped__(path=cfg.nbs_path)
    proc_nbs(cfg.nbs_path, n_workers=0)
    print(f'processed {len(list(cfg.nbs_path.glob("*.ipynb")))} notebooks into {cfg.config_path/"_proc"}')
