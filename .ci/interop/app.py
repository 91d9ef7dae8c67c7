"""A FastAPI app with the shapes Pydantic v2 and FastAPI write into OpenAPI 3.1.

`.ci/interop/run` serves it on loopback and calls it with the Rust client
generated from `clinic.json`, the document this app writes
(`python app.py > clinic.json`, with the versions of requirements.txt).
The handlers keep what they are given in memory and answer with it, so
that the client's test sees what reached the server.
"""
import datetime as dt
import decimal
import enum
import ipaddress
import uuid
from typing import Annotated, Any, Dict, Generic, List, Literal, Optional, Set, Tuple, TypeVar, Union

from fastapi import APIRouter, Body, Cookie, Depends, FastAPI, File, Form, Header, Path, Query, UploadFile, status
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.security import APIKeyHeader, HTTPBasic, OAuth2PasswordBearer
from pydantic import BaseModel, ConfigDict, EmailStr, Field, HttpUrl, SecretStr, computed_field, conint

OWNERS = {}
VISITS = {}

app = FastAPI(title="Pet Clinic", version="2.1.0", summary="A FastAPI app with many pydantic v2 shapes",
              servers=[{"url": "https://clinic.example.com/api"}])


class Species(str, enum.Enum):
    dog = "dog"
    cat = "cat"
    bird = "bird"


class Level(enum.IntEnum):
    low = 1
    mid = 2
    high = 3


class Address(BaseModel):
    street: str
    city: str = Field(min_length=1, max_length=80, examples=["Lyon"])
    zip: Annotated[str, Field(pattern=r"^[0-9]{5}$")]
    country: str = "FR"


class Owner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: uuid.UUID
    email: EmailStr
    name: str = Field(alias="fullName")
    phones: List[str] = []
    address: Optional[Address] = None
    website: Optional[HttpUrl] = None
    password: SecretStr = Field(exclude=True, default=SecretStr(""))
    tags: Set[str] = set()
    created: dt.datetime
    birthday: Optional[dt.date] = None


# A tagged union as Pydantic writes one: each tag has a default, so no
# alternative requires it.
class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    name: str
    good: bool = True


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    name: str
    lives: conint(ge=0, le=9) = 9


class Bird(BaseModel):
    kind: Literal["bird"] = "bird"
    name: str
    wingspan_cm: float = Field(gt=0)


Animal = Annotated[Union[Dog, Cat, Bird], Field(discriminator="kind")]


class Visit(BaseModel):
    id: int
    animal: Animal
    reasons: List[str] = Field(default_factory=list, max_length=5)
    weight: Optional[decimal.Decimal] = None
    coords: Optional[Tuple[float, float]] = None
    extra: Dict[str, Any] = {}
    counts: Dict[str, int] = {}
    level: Level = Level.low
    duration: Optional[dt.timedelta] = None
    at: Optional[dt.time] = None
    ip: Optional[ipaddress.IPv4Address] = None
    notes: Union[str, List[str], None] = None
    scan: Optional[bytes] = None
    parent: Optional["Visit"] = None

    @computed_field
    @property
    def reason_count(self) -> int:
        return len(self.reasons)


T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: List[T]
    total: int
    next: Optional[str] = None


class Problem(BaseModel):
    detail: str


oauth2 = OAuth2PasswordBearer(tokenUrl="token", scopes={"read": "Read", "write": "Write"})
basic = HTTPBasic()
api_key = APIKeyHeader(name="X-API-Key", auto_error=False)

owners = APIRouter(prefix="/owners", tags=["owners"])


@owners.get("/", response_model=Page[Owner])
def list_owners(limit: Annotated[int, Query(ge=1, le=100)] = 20,
                cursor: Optional[str] = None,
                species: Annotated[List[Species], Query()] = [],
                q: Annotated[Optional[str], Query(min_length=3, alias="search", deprecated=True)] = None,
                token: str = Depends(oauth2)):
    if token != "t0k":
        return JSONResponse(status_code=401, content={"detail": "bad token " + token})
    items = [o for o in OWNERS.values() if not q or q in o.name][:limit]
    return Page[Owner](items=items, total=len(items),
                       next=(cursor or "") + ",".join(s.value for s in species) or None)


@owners.post("/", response_model=Owner, status_code=status.HTTP_201_CREATED,
             responses={409: {"model": Problem, "description": "Already there"}})
def create_owner(owner: Owner, x_request_id: Annotated[Optional[str], Header()] = None):
    if owner.id in OWNERS:
        return JSONResponse(status_code=409, content={"detail": "exists " + (x_request_id or "")})
    OWNERS[owner.id] = owner
    return owner


@owners.get("/{owner_id}", response_model=Owner, responses={404: {"model": Problem}})
def get_owner(owner_id: Annotated[uuid.UUID, Path(description="The owner")],
              session: Annotated[Optional[str], Cookie()] = None):
    if owner_id not in OWNERS:
        return JSONResponse(status_code=404, content={"detail": "no owner; session=" + str(session)})
    return OWNERS[owner_id]


@owners.put("/{owner_id}/address", response_model=Address)
def set_address(owner_id: uuid.UUID, address: Annotated[Address, Body(embed=True)],
                notify: Annotated[bool, Body()] = False):
    if notify:
        address.country = "NOTIFIED"
    return address


@owners.delete("/{owner_id}", status_code=204)
def delete_owner(owner_id: uuid.UUID, credentials=Depends(basic)) -> None:
    if (credentials.username, credentials.password) == ("ann", "pw"):
        OWNERS.pop(owner_id, None)


visits = APIRouter(prefix="/visits", tags=["visits"])


@visits.post("/", response_model=Visit)
def create_visit(visit: Visit, key: Optional[str] = Depends(api_key)):
    VISITS[visit.id] = visit
    return visit


@visits.get("/{visit_id}")
def get_visit(visit_id: Annotated[int, Path(gt=0)]) -> Union[Visit, Problem]:
    if visit_id in VISITS:
        return VISITS[visit_id]
    return Problem(detail="no visit %d" % visit_id)


@visits.get("/", response_model=Page[Visit])
def list_visits(level: Optional[Level] = None, since: Optional[dt.datetime] = None,
                ids: Annotated[Optional[List[int]], Query()] = None):
    items = [v for v in VISITS.values()
             if (ids is None or v.id in ids) and (level is None or v.level == level)]
    return Page[Visit](items=items, total=len(items), next=since.isoformat() if since else None)


@visits.post("/{visit_id}/scan")
def upload_scan(visit_id: int, scan: Annotated[UploadFile, File()],
                pages: Annotated[List[UploadFile], File()] = [],
                comment: Annotated[Optional[str], Form()] = None) -> Dict[str, int]:
    return {"scan": len(scan.file.read()), "pages": len(pages), "comment": len(comment or ""),
            "png": int(scan.content_type == "image/png" and scan.filename == "s.png")}


@visits.post("/search")
def search_visits(species: Annotated[Species, Form()], words: Annotated[List[str], Form()] = []) -> List[Visit]:
    return [v for v in VISITS.values()
            if v.animal.kind == species.value and all(w in v.reasons for w in words)]


@visits.get("/{visit_id}/report", response_class=PlainTextResponse)
def report(visit_id: int) -> str:
    return "report for %d" % visit_id


@visits.patch("/{visit_id}", response_model=Visit)
def patch_visit(visit_id: int, changes: Dict[str, Any]):
    VISITS[visit_id] = VISITS[visit_id].model_copy(update=changes)
    return VISITS[visit_id]


@app.get("/health")
def health() -> Dict[str, str]:
    return {"status": "ok"}


@app.post("/token")
def token(username: Annotated[str, Form()], password: Annotated[str, Form()],
          scope: Annotated[str, Form()] = "") -> Dict[str, str]:
    return {"access_token": username + ":" + password, "token_type": "bearer", "scope": scope}


@app.get("/animals/{name}")
def animal(name: str) -> Animal:
    return Cat(name=name, lives=3)


@app.get("/legacy", deprecated=True)
def legacy(x: Annotated[Union[int, str], Query()]) -> Any:
    return {"x": x}


class Subscription(BaseModel):
    url: HttpUrl
    events: List[Literal["visit.created", "visit.closed"]]


@app.webhooks.post("visit-created")
def visit_created(body: Visit):
    """Sent when a visit is created."""


callbacks = APIRouter()


@callbacks.post("{$request.body.url}", response_model=None)
def notify(body: Visit):
    """Sent to the subscriber's URL."""


@app.post("/subscriptions", callbacks=callbacks.routes, status_code=202)
def subscribe(sub: Subscription) -> Dict[str, str]:
    return {"url": str(sub.url), "events": ",".join(sub.events)}


app.include_router(owners)
app.include_router(visits)

if __name__ == "__main__":
    import json
    import sys

    json.dump(app.openapi(), sys.stdout, indent=2)
    sys.stdout.write("\n")
